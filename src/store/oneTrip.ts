import type * as PgModule from 'pg';

/** A statement and its parameters, as Kysely compiles it (`CompiledQuery` has both fields). */
export interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

/** The rows each statement returned, in the order given. */
export type OneTripResults = Record<string, unknown>[][];

/**
 * PostgreSQL: runs statements as one transaction in one round trip, on a connection of the pool. They are
 * sent together (extended protocol, one Sync at the end), so the server runs them one after the other in
 * one implicit transaction, each with a snapshot of its own, and commits at the Sync: the answer comes
 * back after the commit (with synchronous_commit as configured, on by default), and a statement that
 * fails rolls them all back. Nothing in between can look at a result: a statement that must not write
 * under some condition states that condition itself.
 */
export type OneTrip = (statements: readonly Statement[]) => Promise<OneTripResults>;

/**
 * The OneTrip of a store's pool. `onWrite` is called when each connection goes back to the pool (see
 * writeTracking.ts).
 *
 * The statements are sent unnamed, so PostgreSQL parses and plans them on every call, as it does every
 * statement Kysely sends. Named (prepared once per connection) they would cost about 0.3 ms less a call,
 * but their generic plan, made once from the statistics of the moment (an empty queue_items, an accounts
 * table of one row), stays: hash joins over whole tables that cost more with every row (measured: from
 * 1.1 to 4 ms a call over 20,000 saves). Unnamed statements also need nothing of a pooler (see
 * docs/operating.md, PgBouncer).
 */
export function oneTripOn(pg: typeof PgModule, pool: PgModule.Pool, onWrite: () => void): OneTrip {
  return async (statements) => {
    const client = await pool.connect();
    let broken = false;
    try {
      return await new Promise<OneTripResults>((resolve, reject) => {
        client.query(new Pipelined(pg, statements, resolve, reject));
      });
    } catch (err) {
      // A server's error leaves the connection usable (it answers the Sync); anything else may not.
      broken = !(err instanceof pg.DatabaseError);
      throw err;
    } finally {
      client.release(broken);
      onWrite();
    }
  };
}

/** pg's value conversion for parameters (arrays, dates, buffers), which node-postgres exports untyped. */
type PrepareValue = (value: unknown) => string | Buffer | null;

/**
 * A node-postgres Submittable: the client hands it the connection when its turn comes, and then each
 * message of the answer, until the ReadyForQuery that follows the Sync.
 */
class Pipelined implements PgModule.Submittable {
  private readonly results: OneTripResults = [];
  private current: PgModule.Result | null = null;
  private failed = false;

  constructor(
    private readonly pg: typeof PgModule,
    private readonly statements: readonly Statement[],
    private readonly resolve: (results: OneTripResults) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  submit(connection: PgModule.Connection): void {
    const prepareValue = (this.pg as unknown as { utils: { prepareValue: PrepareValue } }).utils.prepareValue;
    const stream = connection.stream as PgModule.Connection['stream'] & { cork(): void; uncork(): void };
    stream.cork();
    try {
      for (const { sql, parameters } of this.statements) {
        connection.parse({ name: '', text: sql, types: [] }, true);
        connection.bind({ values: [...parameters], valueMapper: prepareValue } as PgModule.BindConfig, true);
        connection.describe({ type: 'P', name: '' }, true);
        connection.execute({ portal: '' }, true);
      }
      connection.sync();
    } finally {
      stream.uncork();
    }
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.current = new this.pg.Result('object', this.pg.types);
    (this.current as unknown as { addFields(fields: unknown[]): void }).addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    const result = this.current as unknown as {
      parseRow(fields: unknown[]): unknown;
      addRow(row: unknown): void;
    };
    result.addRow(result.parseRow(msg.fields));
  }

  handleCommandComplete(): void {
    this.results.push((this.current?.rows ?? []) as Record<string, unknown>[]);
    this.current = null;
  }

  handleEmptyQuery(): void {
    this.results.push([]);
  }

  handleError(err: unknown): void {
    this.failed = true;
    this.reject(err);
  }

  handleReadyForQuery(): void {
    if (!this.failed) this.resolve(this.results);
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: PgModule.Connection & { sendCopyFail(msg: string): void }): void {
    connection.sendCopyFail('no COPY in a one-trip transaction');
  }

  handleCopyData(): void {}
}

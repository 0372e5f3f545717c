/**
 * Output whose reader has gone (`tidings feed list | head -1`: head read its line and exited). Node ignores
 * SIGPIPE, so the next write fails with EPIPE, which an output stream emits as an 'error' event: unhandled,
 * that is a stack trace and exit 1. A reader that closes the pipe has read all it wanted, so what would have
 * been printed is dropped, quietly, and the command ends as it would have: whatever it was doing (an import,
 * a build) is finished, its database closed, with its own exit status (0 on success). `serve` and `worker`
 * keep running: their logs go to stderr through pino, which drops them the same way (its destination's
 * EPIPE filter).
 */
export function dropOutputWhenClosed(
  stream: NodeJS.WritableStream,
  onOtherError: (err: Error) => void,
): void {
  stream.on('error', (err: Error) => {
    if ('code' in err && err.code === 'EPIPE') return;
    onOtherError(err);
  });
}

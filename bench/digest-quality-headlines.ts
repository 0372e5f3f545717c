/**
 * Headlines of bench:digest-quality's scenario (bench/digest-quality-scenario.ts). A big story is one kind
 * of event with its own key words (names, places, numbers) drawn for it; each site that covers it words it
 * its own way, from the kind's templates: the versions share some key words and differ in the rest, as
 * real headlines of one story do ("Fed raises interest rates by half a point" / "Interest rates rise again
 * as Fed acts"). Other items get headlines composed of fragments, so that two of them rarely share more
 * than a word or two.
 */

/** A seeded source of choices (the scenario's PRNG). */
export interface Pick {
  int(lo: number, hi: number): number;
  one<T>(list: readonly T[]): T;
}

/** One story's versions: headline and summary per template, the same key words filled in. */
export interface StoryText {
  kind: string;
  versions: { title: string; summary: string }[];
}

import {
  ACTIONS,
  AGENCIES,
  APPLIANCES,
  BLOG_OPENERS,
  BLOG_TOPICS,
  CASES,
  COMPANIES,
  COURTS,
  CUPS,
  DESTINATIONS,
  FILLERS,
  FINDINGS,
  GADGETS,
  INSTITUTES,
  MISSIONS,
  OBJECTS,
  PEOPLE,
  PLACES,
  POINTS,
  PRODUCTS,
  ROLES,
  STORMS,
  SUBJECTS,
  TAILS,
  TEAMS,
  WORKERS,
} from './digest-quality-words.js';

type Slots = Record<string, string>;

interface Kind {
  name: string;
  slots(p: Pick): Slots;
  /** At least four: a story is covered by up to four sites, each with its own. */
  titles: string[];
  summaries: string[];
}

const BANKS = [
  { short: 'Fed', long: 'Federal Reserve' },
  { short: 'ECB', long: 'European Central Bank' },
  { short: 'BoE', long: 'Bank of England' },
  { short: 'BoJ', long: 'Bank of Japan' },
  { short: 'RBA', long: 'Reserve Bank of Australia' },
  { short: 'SNB', long: 'Swiss National Bank' },
];

const KINDS: Kind[] = [
  {
    name: 'rates',
    slots: (p) => ({ ...p.one(BANKS), n: p.one(POINTS) }),
    titles: [
      '{short} raises interest rates by a {n} point',
      '{long} lifts rates {n} point to fight inflation',
      'Interest rates rise again as {short} acts',
      'Borrowers face higher costs after {long} hike',
    ],
    summaries: [
      'The {long} raised its benchmark rate by a {n} percentage point, its third move this year.',
      'Policymakers at the {short} voted to tighten again as prices keep climbing.',
    ],
  },
  {
    name: 'election',
    slots: (p) => ({ person: p.one(PEOPLE), place: p.one(PLACES), pct: String(p.int(51, 63)) }),
    titles: [
      '{person} wins {place} election with {pct}% of the vote',
      '{place} voters hand {person} a clear victory',
      '{person} claims win in {place} vote',
      'Election in {place}: {person} comes out ahead',
    ],
    summaries: [
      'With nearly all ballots counted, {person} leads with {pct} per cent in {place}.',
      'Opponents conceded late on Sunday as results from {place} came in.',
    ],
  },
  {
    name: 'quake',
    slots: (p) => ({ place: p.one(PLACES), m: `${p.int(5, 7)}.${p.int(1, 9)}` }),
    titles: [
      'Magnitude {m} earthquake strikes {place}',
      '{place} shaken by {m} quake',
      'Strong earthquake hits {place} as rescuers search rubble',
      'Tremor of magnitude {m} rocks {place} region overnight',
    ],
    summaries: [
      'A magnitude {m} earthquake struck near {place}, damaging buildings and cutting power.',
      'Emergency services in {place} said the search for survivors would continue through the night.',
    ],
  },
  {
    name: 'takeover',
    slots: (p) => {
      const buyer = p.one(COMPANIES);
      let target = p.one(COMPANIES);
      while (target === buyer) target = p.one(COMPANIES);
      return { buyer, target, n: String(p.int(3, 68)) };
    },
    titles: [
      '{buyer} to buy {target} for ${n} billion',
      '{target} agrees ${n}bn takeover by {buyer}',
      "{buyer}'s ${n} billion deal for {target} faces regulators",
      'Why {buyer} wants {target}',
    ],
    summaries: [
      'The all-cash offer values {target} at ${n} billion, a premium of about 30 per cent.',
      'Shareholders of {target} still have to approve the deal, expected to close next year.',
    ],
  },
  {
    name: 'strike',
    slots: (p) => ({ workers: p.one(WORKERS), place: p.one(PLACES), n: String(p.int(2, 5)) }),
    titles: [
      'Thousands of {workers} in {place} begin {n}-day strike over pay',
      '{place} {workers} walk out for {n} days',
      'Strike by {workers} disrupts {place}',
      'Talks fail as {workers} strike across {place}',
    ],
    summaries: [
      'Unions representing {workers} in {place} said the {n}-day walkout was a last resort.',
      'Managers said contingency plans were in place but warned of disruption.',
    ],
  },
  {
    name: 'storm',
    slots: (p) => ({ name: p.one(STORMS), place: p.one(PLACES), n: String(p.int(70, 130)) }),
    titles: [
      'Storm {name} makes landfall in {place} with {n} mph winds',
      '{place} braces as Storm {name} arrives',
      'Thousands without power after {name} batters {place}',
      'Gusts of {n} mph recorded as Storm {name} hits',
    ],
    summaries: [
      'Storm {name} brought gusts of up to {n} mph to {place}, felling trees and closing roads.',
      'Forecasters expect the storm to weaken as it moves inland.',
    ],
  },
  {
    name: 'court',
    slots: (p) => ({ court: p.one(COURTS), company: p.one(COMPANIES), topic: p.one(CASES) }),
    titles: [
      '{court} rules against {company} in {topic} case',
      '{company} loses {topic} appeal',
      "Judges side with regulators over {company}'s {topic} practices",
      '{court} decision is a blow to {company}',
    ],
    summaries: [
      'The {court} upheld the finding against {company} in a long-running {topic} dispute.',
      '{company} said it was studying the judgment and considering its options.',
    ],
  },
  {
    name: 'launch',
    slots: (p) => ({ agency: p.one(AGENCIES), mission: p.one(MISSIONS), dest: p.one(DESTINATIONS) }),
    titles: [
      '{agency} launches {mission} mission to {dest}',
      '{mission} lifts off on journey to {dest}',
      "{agency}'s {mission} probe heads for {dest} after flawless launch",
      'Watch: {mission} rockets toward {dest}',
    ],
    summaries: [
      'The {mission} spacecraft separated from its rocket and is on course for {dest}.',
      'Mission controllers at {agency} confirmed a healthy signal shortly after launch.',
    ],
  },
  {
    name: 'final',
    slots: (p) => {
      const winner = p.one(TEAMS);
      let loser = p.one(TEAMS);
      while (loser === winner) loser = p.one(TEAMS);
      return { winner, loser, cup: p.one(CUPS), a: String(p.int(2, 4)), b: String(p.int(0, 1)) };
    },
    titles: [
      '{winner} beat {loser} {a}-{b} to win the {cup}',
      '{cup} final: {winner} {a}, {loser} {b}',
      '{loser} fall short as {winner} lift {cup} trophy',
      '{winner} crowned {cup} champions',
    ],
    summaries: [
      '{winner} scored twice after the break to beat {loser} {a}-{b} in the {cup} final.',
      'It is the first {cup} title for {winner} in more than a decade.',
    ],
  },
  {
    name: 'gadget',
    slots: (p) => ({
      company: p.one(COMPANIES),
      product: `${p.one(PRODUCTS)} ${p.int(2, 9)}`,
      gadget: p.one(GADGETS),
      price: String(p.int(3, 19) * 100 - 1),
    }),
    titles: [
      '{company} unveils {product} {gadget} at ${price}',
      "{company}'s new {product} goes on sale for ${price}",
      'First look: the {product} {gadget} from {company}',
      '{product} announced: what you need to know',
    ],
    summaries: [
      'The {product} is a {gadget} priced at ${price}, shipping next month.',
      '{company} says the {product} lasts longer on a charge than any {gadget} it has made.',
    ],
  },
  {
    name: 'recall',
    slots: (p) => ({ company: p.one(COMPANIES), thing: p.one(APPLIANCES), n: `${p.int(12, 900)},000` }),
    titles: [
      '{company} recalls {n} {thing}s over fire risk',
      'Fire risk prompts {company} {thing} recall',
      '{company} {thing} recall: check if yours is affected',
      'Regulators order recall of {n} {thing}s',
    ],
    summaries: [
      '{company} is recalling {n} {thing}s after reports of overheating.',
      'Owners are told to stop using the {thing} and contact {company} for a refund.',
    ],
  },
  {
    name: 'discovery',
    slots: (p) => ({ inst: p.one(INSTITUTES), finding: p.one(FINDINGS) }),
    titles: [
      'Scientists at {inst} discover {finding}',
      '{inst} researchers find {finding}',
      'Breakthrough as team reports {finding}',
      '{finding}: what the study from {inst} shows',
    ],
    summaries: [
      'A team at {inst} reports {finding}, a result other groups will now try to reproduce.',
      'The study, published this week, took five years of fieldwork.',
    ],
  },
  {
    name: 'resignation',
    slots: (p) => ({
      person: p.one(PEOPLE),
      role: p.one(ROLES),
      place: p.one(PLACES),
      n: String(p.int(3, 11)),
    }),
    titles: [
      '{person} resigns as {place} {role}',
      '{place} {role} {person} steps down',
      '{person} quits after {n} years as {role}',
      'Who will replace {person}?',
    ],
    summaries: [
      '{person} announced the resignation after {n} years as {role} of {place}.',
      'A successor is expected to be named within weeks.',
    ],
  },
];

const fill = (template: string, slots: Slots): string =>
  template.replace(/\{(\w+)\}/g, (_, key: string) => slots[key] ?? key);

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * A day's big stories: `count` of different kinds (the kinds come back on other days with other key
 * words), each with its versions in a shuffled order (one per covering site).
 */
export function bigStories(p: Pick, count: number): StoryText[] {
  const kinds = [...KINDS];
  const stories: StoryText[] = [];
  for (let i = 0; i < count && kinds.length > 0; i++) {
    const kind = kinds.splice(p.int(0, kinds.length - 1), 1)[0];
    if (kind === undefined) break;
    const slots = kind.slots(p);
    const order = kind.titles.map((t, j) => ({ t, j, r: p.int(0, 1_000_000) })).sort((a, b) => a.r - b.r);
    stories.push({
      kind: kind.name,
      versions: order.map(({ t, j }) => ({
        title: capitalise(fill(t, slots)),
        // Two sites of four open with the same sentence (wire copy); each goes on in its own words.
        summary: `${fill(kind.summaries[j % 2] ?? '', slots)} ${p.one(FILLERS)}`,
      })),
    });
  }
  return stories;
}

/** A headline and summary for an item that is no big story: news and daily sites' fare, or a blog post. */
export function ordinaryItem(p: Pick, blog: boolean): { title: string; summary: string } {
  if (blog) {
    const topic = p.one(BLOG_TOPICS);
    return {
      title: `${p.one(BLOG_OPENERS)} ${topic}${p.int(0, 3) === 0 ? `, part ${p.int(2, 6)}` : ''}`,
      summary: `Some thoughts on ${topic} after a few months of trying things out. ${p.one(FILLERS)}`,
    };
  }
  const subject = p.one(SUBJECTS);
  const title = `${p.one(PLACES)} ${subject.toLowerCase()} ${p.one(ACTIONS)} ${p.one(OBJECTS)}${p.one(TAILS)}`;
  const first = p.int(0, FILLERS.length - 1);
  const second = (first + p.int(1, FILLERS.length - 1)) % FILLERS.length;
  return { title, summary: `${title}. ${FILLERS[first] ?? ''} ${FILLERS[second] ?? ''}` };
}

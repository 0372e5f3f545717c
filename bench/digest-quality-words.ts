/** The words bench:digest-quality's headlines are made of (bench/digest-quality-headlines.ts). */

/** A list written as one string, its entries separated by "|". */
const list = (s: string): readonly string[] => s.split('|');

export const PEOPLE = list(
  'Okafor|Lindqvist|Moreau|Tanaka|Alvarez|Kowalski|Haddad|Brennan|Petrov|Nakamura|Osei' +
    '|Fischer|Castellanos|Mbeki|Ruiz|Johansson|Karimi|Delacroix|Varga|Sørensen',
);
export const PLACES = list(
  'Lisbon|Valparaíso|Osaka|Nairobi|Manitoba|Tasmania|Sicily|Anatolia|Bavaria|Quebec|Mindanao' +
    '|Patagonia|Gujarat|Andalusia|Lagos|Hokkaido|Cork|Tbilisi|Montevideo|Crete',
);
export const COMPANIES = list(
  'Norvik|Helix Dynamics|Brightwater|Castellan Motors|Aurum Pharma|Kestrel Air|Quanta Foods' +
    '|Meridian Bank|Solace Energy|Tessellate|Orbis Telecom|Pinecrest Retail|Vantor Chips' +
    '|Larkspur Media|Ironbridge Steel|Cobalt Mobility',
);
export const WORKERS = list(
  'rail workers|nurses|teachers|dock workers|airline pilots|bus drivers|postal staff',
);
export const STORMS = list('Agatha|Bertrand|Celine|Dorian|Elowen|Fergus|Greta|Hamish|Imogen|Jasper');
export const COURTS = list('Supreme Court|High Court|Court of Appeal|EU General Court|Constitutional Court');
export const CASES = list('privacy|antitrust|patent|tax|labour|data-sharing|pricing');
export const AGENCIES = list('NASA|ESA|SpaceX|ISRO|JAXA|Rocket Lab');
export const MISSIONS = list('Helios|Meridian|Odyssey|Perseid|Tempest|Aurora|Lodestar|Vesper|Caravel');
export const DESTINATIONS = list('the Moon|Mars|Europa|Venus|asteroid Psyche|Titan|Mercury');
export const TEAMS = list(
  'Porto|Ajax|Celtic|Benfica|Galatasaray|Feyenoord|Sevilla|Napoli|Lyon|Leipzig|Dortmund' +
    '|Marseille|Villarreal|Brugge',
);
export const CUPS = list('Super Cup|Continental Cup|Champions Shield|Nations Trophy|Atlantic Cup');
export const PRODUCTS = list('Pulse|Nimbus|Vertex|Lumen|Echo|Arc|Halo|Forge|Drift|Prism');
export const GADGETS = list('phone|laptop|headset|e-bike|smartwatch|tablet|camera');
export const APPLIANCES = list('heater|power bank|air fryer|scooter|dishwasher|kettle|hoverboard');
export const INSTITUTES = list(
  'Caltech|ETH Zurich|Kyoto University|the Max Planck Institute|Oxford|CERN|KAUST',
);
export const FINDINGS = list(
  'a new antibiotic in soil bacteria|water ice beneath a lunar crater' +
    '|the oldest known cave painting|a gene linked to longevity|a frog species that glows' +
    '|a room-temperature magnet|a 3,000-year-old shipwreck',
);
export const ROLES = list(
  'finance minister|health minister|chief executive|central bank governor|party leader',
);
export const POINTS = list('quarter|half|three-quarter');
export const SUBJECTS = list(
  'City council|Hospital trust|Local brewery|Regional airport|Museum|Water utility|University' +
    '|Farmers|Bookshop chain|Ferry operator|Housing charity|Zoo|Orchestra|Tech start-up' +
    '|Fishing fleet|Library service|Cycling club|Police force|Wine growers|Film festival' +
    '|Vineyard|Bakery|School board|Energy co-op|Tram network|Theatre|Park rangers|Bus company',
);
export const ACTIONS = list(
  'unveils plan for|delays|wins funding for|scraps|opens|consults residents on|doubles' +
    '|rethinks|celebrates|warns over|sells|revives|cuts back|expands|tests|bans|restores' +
    '|apologises for|pauses|invests in',
);
export const OBJECTS = list(
  'riverside walkway|night buses|rooftop gardens|weekend market|solar canopy|heritage trail' +
    '|parking charges|flood barrier|youth orchestra|electric ferries|seed bank|cycle lanes' +
    '|oyster beds|observatory|food hall|reading rooms|wildflower meadows|wind turbines' +
    '|cinema nights|bike hire scheme|sea wall|apprenticeships|lighthouse tours|allotments',
);
export const TAILS = list(
  ' after complaints| despite costs| for summer| in surprise move| amid protests' +
    '| ahead of schedule| at last| for the first time| after review',
);
export const BLOG_OPENERS = list(
  'Notes on|Why I stopped using|A week with|What I learned building|Revisiting|In praise of' +
    '|Against|A field guide to|Small wins with|The case for|Debugging|Rethinking',
);
export const BLOG_TOPICS = list(
  'SQLite in production|sourdough starters|mechanical keyboards|static site generators' +
    '|home espresso|Rust lifetimes|film cameras|slow travel|type-safe SQL|backyard astronomy' +
    '|houseplants|self-hosted email|long-distance walking|Postgres indexes|garden birds' +
    '|analogue synths|bread ovens|watercolour|feed readers|vintage bicycles',
);
export const FILLERS = list(
  'Details were set out in a statement on Tuesday.' +
    '|Residents have until the end of the month to comment.' +
    '|The announcement follows months of debate.' +
    '|Critics say the timing is poor; supporters disagree.' +
    '|More details are expected later this week.' +
    '|A spokesperson said the decision was not taken lightly.',
);

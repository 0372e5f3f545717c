/**
 * Labelled stories for npm run conformance:stories: items of two real feeds in ../shared/corpora/miniflux
 * that tell one story, found by reading both feeds side by side (Golem.de's and heise online's of
 * 25–28 October 2018). An item is named by its file and its place in the file (0 for the first item, as
 * parseFeed returns them); what each story is, is said in our own words. No corpus text is copied here:
 * the script reads the headlines from the corpora at run time.
 */
export interface LabelledStory {
  /** What happened, in a few words of our own. */
  story: string;
  items: readonly { file: string; index: number }[];
}

const GOLEM = 'encoding_ISO-8859-1.xml';
const HEISE = 'rdf_UTF8.xml';
const pair = (story: string, golem: number, heise: number): LabelledStory => ({
  story,
  items: [
    { file: GOLEM, index: golem },
    { file: HEISE, index: heise },
  ],
});

/** Every story both feeds carry; any other pair of their items is two stories. */
export const LABELLED_STORIES: readonly LabelledStory[] = [
  pair("a Chinese private company's first orbital launch fails", 2, 3),
  pair('a start-up shows a folding electric city car', 3, 6),
  pair("Christie's sells a portrait made by an AI", 4, 46),
  pair('Microsoft keeps selling to the US military', 5, 14),
  pair('a Lenovo BIOS setting leaves ThinkPads unusable', 7, 27),
  pair('Fujitsu closes its Augsburg plant', 11, 53),
  pair("Germany's interior minister asks for other 5G auction rules", 12, 16),
  pair('British Airways: 185,000 more customers affected by the breach', 14, 51),
  pair('the first reviews of the iPhone XR', 15, 31),
  pair('the Greens want network operators to pay for broadband', 17, 38),
  pair("Intel's record quarter", 20, 45),
  pair('the European Parliament on Facebook after Cambridge Analytica', 29, 47),
  pair('the first reviews of Red Dead Redemption 2', 38, 37),
  pair("Xiaomi's Mi Mix 3 is announced", 39, 59),
];

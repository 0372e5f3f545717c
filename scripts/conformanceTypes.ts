/** One expectation checked by npm run conformance. */
export interface Check {
  file: string;
  field: string;
  expected: string;
  actual: string;
  pass: boolean;
}

/** One document's checks; it passes when all of them do. */
export interface FileResult {
  group: string;
  file: string;
  checks: Check[];
}

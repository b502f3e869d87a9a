/** A subcommand: parses its arguments, writes its report through `out`, and returns the exit status. */
export type Command = (args: string[], out: (text: string) => void) => Promise<number>;

/** Input the command cannot use (a missing file, an invalid Metric): exit status 2 with the message. */
export class BadInput extends Error {}

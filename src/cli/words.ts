// Words as they travel through yargs: stdin's "-", and options that may be repeated.

/**
 * yargs drops a lone "-" from positionals, and "-" means stdin; so it travels through yargs as a token no
 * path can be, and comes back as "-" in the options.
 */
export const stdinToken = '\u0000stdin';
export const fromToken = (list: unknown): string[] => (list as string[]).map((s) => (s === stdinToken ? '-' : s));

/** A repeatable option's values: none, one, or the array yargs makes of repeats. */
export function listOf(v: unknown): string[] {
  return v === undefined ? [] : (Array.isArray(v) ? v : [v]).map(String);
}

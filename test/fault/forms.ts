// How hard each fault is driven: the short form runs in CI (every test file well under a minute
// of faults), the long form in bench/suite/fault-report.ts.
export const FORMS = {
  short: {
    writers: 16,
    terminateRounds: 8,
    runtimeKills: 1,
    postmasterKills: 1,
    hostileRounds: 15,
    regexFlooders: 6,
    regexWindowMs: 3_000,
    floodSockets: 1500,
    floodWindowMs: 3_000,
    slowUploads: 4,
  },
  long: {
    writers: 16,
    terminateRounds: 20,
    runtimeKills: 5,
    postmasterKills: 3,
    hostileRounds: 100,
    regexFlooders: 6,
    regexWindowMs: 20_000,
    floodSockets: 3000,
    floodWindowMs: 20_000,
    slowUploads: 8,
  },
};
export type Form = (typeof FORMS)['short'];

/**
 * Regex repeats: 17–31 s of PostgreSQL CPU to compile on a 2-core machine (cost grows steeply);
 * at 275 it took 0.6–6.8 s, close to the 1 s anon statement timeout the flood must hit.
 */
export const REGEX_REPEATS = 400;
/** Pool size of the flood server: fewer connections than flooders, so the pool queue is tested. */
export const FLOOD_POOL = 3;
/** Open-file limit of the flood server, and its connection cap below it. */
export const FLOOD_FILE_LIMIT = 1024;
export const FLOOD_MAX_CONNECTIONS = 300;

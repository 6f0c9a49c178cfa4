// Install step (npm postinstall): patches postgres.js 3.4.9 where a connection that closes under a
// reserved or pending write crashes the process or strands its callers (upstream issues #1208,
// #1199, #1195, #1186, still open in 3.4.9), and where a COPY ... TO STDOUT stream leaves its
// connection paused. Each run patches the release's text (kept beside each file as
// <file>.plinth-orig; an install patched before that copy existed is unpatched first), so an
// install with an older set of patches gets the current one. Fails the install if the source
// differs. Optional argument: the postgres package's directory (default: this project's).
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root =
  process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgres');
const MARK = 'plinth-patch';

/** [file, what the release has, what Plinth runs]; each `from` must occur exactly once. */
const patches = [
  // A write scheduled for a socket that closed meanwhile settles its queries instead of throwing
  // a TypeError from a setImmediate callback (uncatchable: it killed the process).
  [
    'connection.js',
    `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`,
    `  function nextWrite(fn) {
    if (!socket) { // ${MARK}: the socket closed under a pending write
      nextWriteTimer !== null && clearImmediate(nextWriteTimer)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`,
  ],
  // A close cleared the pending flush but left its timer handle set, so every later write (the
  // next start-up message included) waited for a flush that never came: the connection hung.
  [
    'connection.js',
    `    clearImmediate(nextWriteTimer)
    socket.removeListener('data', data)`,
    `    clearImmediate(nextWriteTimer)
    nextWriteTimer = chunk = null // ${MARK}: bytes of a dead socket never reach the next one
    socket.removeListener('data', data)`,
  ],
  [
    'connection.js',
    `    clearImmediate(nextWriteTimer)
    if (socket) {`,
    `    clearImmediate(nextWriteTimer)
    nextWriteTimer = chunk = null // ${MARK}
    if (socket) {`,
  ],
  // A query handed to a connection without a socket (closed, not yet reconnected) is refused at
  // once; queued behind a stale active query it would have waited for an answer that never comes.
  [
    'connection.js',
    `    if (terminated)
      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))
`,
    `    if (terminated)
      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))

    if (!socket) // ${MARK}
      return (queryError(q, Errors.connection('CONNECTION_CLOSED', options)), true)
`,
  ],
  // On close every query still waiting is rejected, also after a socket error (queries written
  // between the 'error' and the 'close' events stayed pending forever and poisoned the reconnect).
  [
    'connection.js',
    `    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))`,
    `    ;(query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket)) // ${MARK}
    query = null`,
  ],
  // A successful connection resets the reconnect back-off also when it fetched array types (the
  // default); otherwise every reset connection made the next reconnect wait longer, up to 20 s.
  [
    'connection.js',
    `      if (needsTypes) {
        initial.reserve && (initial = null)`,
    `      if (needsTypes) {
        options.shared.retries = retries = 0 // ${MARK}
        initial.reserve && (initial = null)`,
  ],
  // A reserve() handed a fresh connection as its first request was dropped (never settled): one
  // still in the pool's queue gets the connection from onopen, one taken off it (onclose) directly.
  [
    'connection.js',
    `        initial.reserve && (initial = null)
        return fetchArrayTypes()
      }

      initial && !initial.reserve && execute(initial)`,
    `        initial.reserve && (initial.shifted && (pendingReserve = initial), initial = null) // ${MARK}
        return fetchArrayTypes()
      }

      if (initial && initial.reserve) { // ${MARK}: hand the new connection to its reserve()
        const r = initial
        options.shared.retries = retries = 0
        initial = null
        return r.shifted && !r.settled ? r.reserve(connection) : onopen(connection)
      }
      initial && !initial.reserve && execute(initial)`,
  ],
  [
    'connection.js',
    `      : ending
        ? terminate()
        : onopen(connection)
  }`,
    `      : ending
        ? terminate()
        : pendingReserve // ${MARK}: the reserve() that waited for this connection's types
          ? (pendingReserve.reserve(connection), pendingReserve = null)
          : onopen(connection)
  }`,
  ],
  [
    'connection.js',
    `    initial && (queryError(initial, err), initial = null)
  }`,
    `    initial && (queryError(initial, err), initial = null)
    pendingReserve && (queryError(pendingReserve, err), pendingReserve = null) // ${MARK}
  }`,
  ],
  [
    'connection.js',
    `    , final = null
`,
    `    , final = null
    , pendingReserve = null // ${MARK}
`,
  ],
  // A reserve() that already failed (its connection could not open) is skipped when a connection
  // opens later, instead of swallowing that connection; one taken off the queue by onclose says so.
  // A connection lost while it fetches the array types (the first query of every new connection)
  // rejected a promise nobody awaited: an unhandled rejection (read ECONNRESET) ended the process.
  // The loss itself is handled by the socket's close, which fails the connection's queries.
  [
    'connection.js',
    `        return fetchArrayTypes()
`,
    `        return fetchArrayTypes().catch(() => {}) // ${MARK}: the close handles the loss
`,
  ],
  // A parameter that cannot be serialised (e.g. a value nested past the stack) in a query queued
  // behind another rejected the active query instead and left the failing one in \`sent\`, never
  // written: its caller, and every later query on that connection, waited forever.
  [
    'connection.js',
    `    } catch (error) {
      sent.length === 0 && write(Sync)
      errored(error)
      return true
    }`,
    `    } catch (error) {
      if (query !== q) { // ${MARK}: fail the query that could not be built, nothing was written for it
        sent.remove(q)
        queryError(q, error)
        return true
      }
      sent.length === 0 && write(Sync)
      errored(error)
      return true
    }`,
  ],
  // A COPY ... FROM STDIN that PostgreSQL refuses after its last byte (a constraint, a dropped
  // table, a lost connection) left the writable's final callback waiting for a CommandComplete
  // that never comes: its pipeline never settled (the logs writer stalled for good, a restore hung).
  [
    'connection.js',
    `  function ErrorResponse(x) {
    if (query) {`,
    `  function ErrorResponse(x) {
    final && (final(Errors.postgres(parseError(x))), final = null) // ${MARK}: fail the COPY's writer
    if (query) {`,
  ],
  [
    'connection.js',
    `  function errored(err) {
    stream && (stream.destroy(err), stream = null)`,
    `  function errored(err) {
    stream && (stream.destroy(err), stream = null)
    final && (final(err), final = null) // ${MARK}: a COPY's writer waiting for its end`,
  ],
  // A COPY ... TO STDOUT stream pauses the socket when its buffer is full and resumes it only from
  // its read(); when the last rows filled the buffer, the ended stream never reads again and the
  // connection stayed paused: its next query never got an answer.
  [
    'connection.js',
    `  function CopyDone() {
    stream && stream.push(null)
    stream = null
  }`,
    `  function CopyDone() {
    stream && stream.push(null)
    stream = null
    socket.resume() // ${MARK}: no more copy data; the connection's next answers must flow
  }`,
  ],
  [
    'index.js',
    `        const query = { reserve: resolve, reject }`,
    `        const query = { reserve: resolve, reject: (e) => (query.settled = true, reject(e)) } // ${MARK}`,
  ],
  // Skipped without counting as work: a connection that found only failed reserve()s waiting
  // was marked busy with nothing running, and every later reserve() waited for it forever.
  [
    'index.js',
    `    while (ready && queries.length && max-- > 0) {
      const query = queries.shift()
      if (query.reserve)
        return query.reserve(c)

      ready = c.execute(query)
    }

    ready
      ? move(c, busy)
      : move(c, full)`,
    `    let executed = false // ${MARK}
    while (ready && queries.length && max-- > 0) {
      const query = queries.shift()
      if (query.reserve && query.settled) { // ${MARK}: a reserve() that already failed is no work
        max++
        continue
      }
      if (query.reserve)
        return query.reserve(c)

      ready = c.execute(query)
      executed = true // ${MARK}
    }

    !executed // ${MARK}: nothing was waiting but failed reserve()s; the connection is free
      ? move(c, open)
      : ready
        ? move(c, busy)
        : move(c, full)`,
  ],
  [
    'index.js',
    `    queries.length && connect(c, queries.shift())
  }`,
    `    let next = queries.length ? queries.shift() : null // ${MARK}: failed reserve()s are skipped
    while (next && next.settled) next = queries.length ? queries.shift() : null
    next && connect(c, (next.reserve && (next.shifted = true), next)) // ${MARK}
  }`,
  ],
  // A reserved connection that closed: its queued queries reject, later queries reject at once
  // instead of being written to a dead (or since reconnected, someone else's) connection, and
  // release() leaves it with the pool's closed connections instead of marking it open.
  [
    'index.js',
    `    c.reserved.release = true

    const sql = Sql(handler)
    sql.release = () => {
      c.reserved = null
      onopen(c)
    }

    return sql

    function handler(q) {
      c.queue === full`,
    `    c.reserved.release = true
    let lost = null // ${MARK}
    c.onclose = (e) => {
      lost = e || Errors.connection('CONNECTION_CLOSED', options)
      while (queue.length) queue.shift().reject(lost)
    }

    const sql = Sql(handler)
    sql.release = () => {
      if (lost) return
      c.onclose = null
      c.reserved = null
      onopen(c)
    }

    return sql

    function handler(q) {
      if (lost) return q.reject(lost)
      c.queue === full`,
  ],
];

/** The release's text of a file patched by an earlier run: the patches taken out, last first. */
function unpatched(text, file, where) {
  for (const [f, from, to] of [...patches].reverse()) {
    if (f === file && text.split(to).length - 1 === 1) text = text.replace(to, () => from);
  }
  if (text.includes(MARK))
    throw new Error(
      `patch-postgres: ${where} holds patches this script does not know; reinstall it (rm -rf node_modules/postgres && npm install)`,
    );
  return text;
}

let applied = 0;
for (const dir of ['src', 'cjs/src']) {
  for (const file of new Set(patches.map(([f]) => f))) {
    const target = path.join(root, dir, file);
    const original = `${target}.plinth-orig`;
    if (!existsSync(target)) throw new Error(`patch-postgres: ${target} is missing`);
    const current = readFileSync(target, 'utf8');
    // A file without the mark is the release's (fresh or reinstalled); with it, the copy kept before patching.
    let text = !current.includes(MARK)
      ? current
      : existsSync(original)
        ? readFileSync(original, 'utf8')
        : unpatched(current, file, `${dir}/${file}`);
    writeFileSync(original, text);
    for (const [f, from, to] of patches) {
      if (f !== file) continue;
      const count = text.split(from).length - 1;
      if (count !== 1)
        throw new Error(
          `patch-postgres: ${dir}/${file} is not postgres.js 3.4.9 as expected (${count} matches for a patch)`,
        );
      text = text.replace(from, () => to);
    }
    if (text !== current) {
      writeFileSync(target, text);
      applied++;
    }
  }
}
console.log(applied ? `patch-postgres: patched ${applied} files of postgres.js` : 'patch-postgres: already patched');

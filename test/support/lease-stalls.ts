// The product's words for a command not run because the bus lease lapsed in someone's view, or the
// recorder was offline for a timed-out poll: what a test on a loaded machine presses again after (nothing
// reached the recorder), as an operator would. One statement for every test that retries on them
// (hung-poller, facility-plugin, alarms-bus), so that a change of the product's wording is met in one
// place (src/bus/bus-poller.ts, bus-recorder.ts).

/**
 * The holder's own renewal did not come back within the lease's TTL, so it acts on nothing: its refusal of a
 * command sent under the lease, or its lease lapsed as it was about to send (refused or logged).
 */
export const HOLDER_LAPSED = /refused it: it no longer holds the lease it was sent under \(no renewal came back in time\)|its lease has lapsed/;

/** The panel sent nothing: no poller holds the lease, or the holder is counted gone (no renewal for the TTL). */
export const PANEL_LAPSED = /not sent: (no poller holds the lease of "[^"]+"|the recorder is offline \(the poller "[^"]+" has not renewed its lease for \d+ ms\))/;

/** Either lapse, as a command record's message says it (the panel's own refusal, or the holder's answer). */
export const LAPSED = new RegExp(`${PANEL_LAPSED.source}|${HOLDER_LAPSED.source}`);

/**
 * The panel sent nothing because the recorder was offline in its view for a poll that timed out: the
 * simulator answers in a test's own worker, which the machine stalled past the poll's limit (4 polls, at
 * least 1 s). A clean-clone CI run, alone (2026-11-29): "not sent: the recorder is offline (GET
 * /api/channels failed (timeout): no answer within 1000 ms)".
 */
export const POLL_TIMED_OUT = /not sent: the recorder is offline \([A-Z]+ \S+ failed \(timeout\): no answer within \d+ ms\)/;

/**
 * The panel sent nothing because the recorder was offline in its view, whatever the reason it gives (a
 * poll that timed out, as above, or the poller's state not read again yet: paired run 161 b, at load 9-10,
 * "not sent: the recorder is offline", the product's words then giving no reason). Nothing reached the
 * recorder: an operator presses again once the key is live.
 */
export const OFFLINE_NOT_SENT = /not sent: the recorder is offline \(/;

// The bounds of the bus: how big a message may be (checked before it is parsed), how long a command
// may take to start, and how often a panel may ask. Sizes are of whole payloads (the signed envelope).

/**
 * The largest MQTT packet a recdeck client accepts (MQTT 5 Maximum Packet Size in CONNECT, so the broker
 * never sends more) and the broker should accept (`max_packet_size` in deploy/mosquitto/mosquitto.conf).
 * A reply may carry a channel preview: the simulator's 640x360 PNGs are 24 KB, a busy real picture
 * compresses far worse; 1 MiB leaves room for an uncompressed one, base64-encoded.
 */
export const MAX_PACKET_BYTES = 1024 * 1024;

export const MAX_PAYLOAD_BYTES = {
  /** A command: a call and at most a few settings in its body. */
  cmd: 16 * 1024,
  /** A state part: 16 channels are 4.7 KB in the recorder's wire form. */
  part: 256 * 1024,
  /** Answers, previews included (the packet limit less room for the topic and properties). */
  reply: MAX_PACKET_BYTES - 4096,
  lease: 4096,
  health: 4096,
  refresh: 1024,
} as const;

/** How long after it is sent a command may still start at the poller (the poller's clock). */
export const COMMAND_DEADLINE_MS = 2000;

/**
 * How long the recorder client may hold a request before it leaves (its per-request limit: a request
 * waiting for a connection is dropped then). A command checked before its deadline leaves by deadline
 * plus this, or never.
 */
export const RECORDER_REQUEST_LIMIT_MS = 2000;

/** Added to deadline and request limit before a panel gives up on an answer. */
export const REPLY_MARGIN_MS = 500;

/** A deadline further ahead of the poller's clock than this comes from a clock that is off, or a forger: refused. */
export const MAX_DEADLINE_AHEAD_MS = 10_000;

/** Per panel at the poller: reads (previews, meters, reads at a press) and writes (presses, gains), per second and in a burst. */
export const READ_RATE = { perS: 50, burst: 100 } as const;
export const WRITE_RATE = { perS: 20, burst: 40 } as const;
/**
 * Per panel at the poller, every message on its command topic, counted before its signature is checked
 * or its JSON parsed (the topic names the sender: the broker's ACL ties it to the login): twice its reads
 * and writes together, so that it never cuts short what those take or answer with a refusal (a burst of
 * each, then as many refusals, then the cool-down); it bounds what they never see: messages that fail
 * their signature or parse, and those a poller that lost the lease ignores.
 */
export const MESSAGE_RATE = { perS: 2 * (READ_RATE.perS + WRITE_RATE.perS), burst: 2 * (READ_RATE.burst + WRITE_RATE.burst) } as const;
export const REFRESH_RATE = { perS: 10, burst: 20 } as const;

/** MQTT keep-alive: a broker notices a silent client after 1.5 times this (and fires its last will). */
export const DEFAULT_KEEPALIVE_S = 5;

/** Polls a lease may go unrenewed before it expires: a hung holder loses it within this many polls. */
export const LEASE_TTL_POLLS = 3;

/**
 * A member that goes on sending over its rate after a burst of refusals is ignored this long: its
 * messages are dropped unread and unanswered (its panel's commands fail by their deadline), then it is
 * answered again. A desk's operator never comes near (20 presses a second, sustained past 80).
 */
export const COOL_DOWN_MS = 10_000;

/** A member's refusals are logged and audited once, then summed up once per this interval. */
export const REFUSAL_SUMMARY_MS = 60_000;

import pino, { type DestinationStream, type Logger } from "pino";

/**
 * Structured logs. The key must never reach them: header paths that could carry it are redacted,
 * and every line is scrubbed of any key the proxy has held, whatever field it hid in.
 */
export function createLogger(options: {
  level: string;
  secrets: () => readonly string[];
  destination?: DestinationStream;
}): Logger {
  const scrub = (line: string) => {
    let out = line;
    for (const secret of options.secrets())
      if (secret.length >= 6) out = out.split(secret).join("[redacted]");
    return out;
  };
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: {
        paths: [
          'headers["x-key"]',
          'headers["x-api-key"]',
          "headers.authorization",
          "headers.cookie",
          'req.headers["x-key"]',
          'req.headers["x-api-key"]',
          "req.headers.authorization",
          "req.headers.cookie",
          'request.headers["x-key"]',
          "key",
          "apiKey",
          "api_key",
          "password",
        ],
        censor: "[redacted]",
      },
      hooks: { streamWrite: scrub },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

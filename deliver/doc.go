// Package deliver sends a finished report or alert to people, by e-mail
// (SMTP) and by webhook (signed JSON POST, Slack-compatible), and retries
// what can be retried.
//
// It knows nothing of reports: the caller builds a Message (subject, HTML,
// plain text, attachments, extra webhook fields) and hands it to a Channel
// built by NewEmail or NewWebhook. Deliver sends it with retries and calls
// the caller's record function for every try, so that the caller can keep a
// delivery log: a delivery never fails silently, and the caller decides
// where the log goes. Test sends one short message, without retries, so that
// a wrong SMTP setting or webhook URL shows itself on the day it is
// configured rather than on the first of next month.
//
// # Retries
//
// Deliver retries a failure unless it is permanent, with exponential
// backoff and jitter (see Policy). A failure is permanent when retrying
// cannot help:
//   - webhook: any 3xx (redirects are not followed, because a POST turned
//     into a GET, or a signed body sent elsewhere, is worse than an error),
//     any 4xx except 408 and 429;
//   - e-mail: an SMTP 5xx reply (bad recipient, authentication refused,
//     message rejected), a server certificate that does not verify;
//   - either: a message this package cannot send (no text, bad ID, a
//     webhook payload that is not a JSON object).
//
// Everything else is transient and retried: connection errors, timeouts,
// webhook 408, 429 and 5xx, SMTP 4xx replies. A webhook 429 or 503 with a
// Retry-After header waits that long, bounded by Policy.Max. A Channel
// written elsewhere marks its own failures with *Failure.
//
// Every try carries the same Message.ID: as the e-mail Message-ID and as
// the webhook's X-Flopledger-Delivery header. A try that timed out may
// still have arrived, so receivers should drop a delivery ID they have
// already seen.
//
// # Verifying a webhook
//
// Each webhook request carries:
//
//	Content-Type: application/json
//	User-Agent: flopledger
//	X-Flopledger-Delivery: <Message.ID, the same on every retry>
//	X-Flopledger-Timestamp: <unix seconds when this try was sent>
//	X-Flopledger-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>
//
// (the signature header's name is configurable). A receiver, like those of
// Stripe and GitHub webhooks, should:
//  1. read the raw body bytes, before any JSON parsing;
//  2. reject the request if the timestamp is more than a few minutes
//     (five is usual) from its own clock: this stops replays of a captured
//     request;
//  3. compute hex(HMAC-SHA256(secret, timestamp + "." + body)), prefix it
//     with "sha256=", and compare it with the signature header in constant
//     time (hmac.Equal in Go, hmac.compare_digest in Python);
//  4. drop a delivery ID it has already processed.
//
// Verify does steps 2 and 3 for receivers written in Go.
//
// # Webhook body and Slack
//
// The body is one JSON object whose "text" is Message.Text, merged with the
// fields of Message.Webhook. Slack incoming webhooks need a top-level
// "text" (without it they answer 400 "no_text") and answer 400
// "invalid_payload", 403, 404 or 410 for a payload or channel they refuse,
// all of which Deliver treats as permanent. Slack does not document what it
// does with fields it does not know; in practice it ignores them, so the
// extra fields reach other receivers without upsetting Slack. Slack does not
// check the signature headers either: the secret is still required, so
// that the same channel can later point at a receiver that does.
package deliver

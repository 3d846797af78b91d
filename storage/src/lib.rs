//! The event store on sled: append-only streams of envelopes, durable and atomic.

//! Mail that comes in: the server's own SMTP listener (`listener`) and the reader of replies,
//! which plays the command a reply carries through the command service (`reader`), for the
//! listener and `POST /v1/mail/inbound` alike; a reply to a challenge's mail is answered apart
//! (`challenge`), before the reader; the listener checks each mail's sender (`auth`).

pub mod auth;
pub mod challenge;
pub mod listener;
pub mod reader;

//! `GET /licence`: the terms this server's code is offered under, as the OpenAPI document's
//! `info.license.url` points to them: MIT or Apache 2.0, at the user's choice.

use actix_web::{get, HttpResponse};

const TERMS: &str = concat!(
    "The Avalanche games server is offered under either of these licences, at your choice:\n",
    "the MIT licence or the Apache License, Version 2.0 (SPDX: MIT OR Apache-2.0).\n\n",
    "==============================================================================\n\n",
    include_str!("../../../LICENSE-MIT"),
    "\n==============================================================================\n\n",
    include_str!("../../../LICENSE-APACHE"),
);

#[get("/licence")]
pub async fn licence() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(TERMS)
}

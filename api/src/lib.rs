//! The HTTP server of the Avalanche games: thin handlers (`routes`) over the application layer
//! (`app`), which joins `domain` to `storage`.

pub mod allocator;
pub mod auth;
pub mod backup;
pub mod clock;
pub mod command_answer;
pub mod configuration;
pub mod connections;
pub mod json_body;
pub mod migrate;
pub mod moderate;
pub mod offline;
pub mod openapi;
pub mod problem;
pub mod routes;
pub mod service_notify;
pub mod startup;
pub mod state;
pub mod summary;
pub mod telemetry;
pub mod unread;
pub mod wire;

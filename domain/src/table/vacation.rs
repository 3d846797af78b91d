//! The events of a player's own vacation stream (`vacations-<player id>`): the days a year a
//! player's clocks may stand still are counted from them. The games themselves record each
//! seat's pause as the table events `vacation_started` / `vacation_ended`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Why a vacation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VacationEndReason {
    /// The player came back.
    Returned,
    /// This year's days were used up: the server ended it.
    AllowanceUsed,
}

impl VacationEndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            VacationEndReason::Returned => "returned",
            VacationEndReason::AllowanceUsed => "allowance_used",
        }
    }
}

/// One event of a player's vacation stream. The `type` names are stored forever.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum VacationEvent {
    /// A vacation began; it ends by itself at `ends_by`, when this year's days are used up.
    VacationStarted { ends_by: DateTime<Utc> },
    /// The vacation ended.
    VacationEnded { reason: VacationEndReason },
}

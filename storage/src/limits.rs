//! The limits every backend puts on a batch, so that a batch one backend takes, every backend takes.

use crate::envelope::Batch;
use crate::error::AppendError;

/// Longest stream name, tag, command id or secret name, in bytes: keys stay small.
pub(crate) const MAX_NAME: usize = 512;

/// Refuses an empty batch and names that are empty or too long, before anything is written.
pub(crate) fn validate(stream: &str, batch: &Batch) -> Result<(), AppendError> {
    if batch.events.is_empty() {
        return Err(AppendError::EmptyBatch);
    }
    let name = |what: &str, text: &str| {
        if text.is_empty() {
            Err(AppendError::Invalid(format!("{what} is empty")))
        } else if text.len() > MAX_NAME {
            Err(AppendError::Invalid(format!(
                "{what} is longer than {MAX_NAME} bytes"
            )))
        } else {
            Ok(())
        }
    };
    name("the stream name", stream)?;
    for event in &batch.events {
        name("an event type", &event.event_type)?;
    }
    if let Some(command_id) = &batch.command_id {
        name("the command id", command_id)?;
    }
    for (tag, value) in batch.tags.iter().flatten() {
        name("a tag name", tag)?;
        if value.len() > MAX_NAME {
            return Err(AppendError::Invalid(format!(
                "a tag value is longer than {MAX_NAME} bytes"
            )));
        }
    }
    for (secret, _) in &batch.secrets {
        name("a secret name", secret)?;
    }
    Ok(())
}

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
    let name = validate_name;
    validate_name("the stream name", stream)?;
    for event in &batch.events {
        name("an event type", &event.event_type)?;
    }
    if let Some(command_id) = &batch.command_id {
        name("the command id", command_id)?;
    }
    validate_tags(batch.tags.iter().flatten())?;
    for (secret, _) in &batch.secrets {
        name("a secret name", secret)?;
    }
    Ok(())
}

/// Refuses a retag whose stream name or tags break the limits of a batch.
pub(crate) fn validate_retag(stream: &str, tags: &[(String, String)]) -> Result<(), AppendError> {
    validate_name("the stream name", stream)?;
    validate_tags(tags)
}

fn validate_tags<'a>(
    tags: impl IntoIterator<Item = &'a (String, String)>,
) -> Result<(), AppendError> {
    for (tag, value) in tags {
        validate_name("a tag name", tag)?;
        if value.len() > MAX_NAME {
            return Err(AppendError::Invalid(format!(
                "a tag value is longer than {MAX_NAME} bytes"
            )));
        }
    }
    Ok(())
}

fn validate_name(what: &str, text: &str) -> Result<(), AppendError> {
    if text.is_empty() {
        Err(AppendError::Invalid(format!("{what} is empty")))
    } else if text.len() > MAX_NAME {
        Err(AppendError::Invalid(format!(
            "{what} is longer than {MAX_NAME} bytes"
        )))
    } else {
        Ok(())
    }
}

//! `avalanche moderate --game G --hide M`: hides a message through a running server's admin
//! listener (`POST /games/{id}/messages/{message}/hide`), as `avalanche backup` takes a backup.

use crate::configuration::ModerateArgs;
use std::time::Duration;

/// Hides the message `args` names; what to print.
pub fn hide(args: &ModerateArgs) -> Result<String, String> {
    let token = match &args.token_file {
        None => None,
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?
                .trim()
                .to_string(),
        ),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| e.to_string())?;
        let url = format!(
            "{}/games/{}/messages/{}/hide",
            args.server.trim_end_matches('/'),
            args.game,
            args.hide
        );
        let mut request = client.post(url);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("cannot reach the server at {}: {e}", args.server))?;
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        if !status.is_success() {
            let detail = serde_json::from_str::<serde_json::Value>(&body)
                .ok()
                .and_then(|problem| problem["detail"].as_str().map(str::to_string))
                .unwrap_or(body);
            return Err(format!(
                "the server refused ({}): {detail}",
                status.as_u16()
            ));
        }
        Ok(format!(
            "message {} of game {} is hidden: its text is gone",
            args.hide, args.game
        ))
    })
}

//! `avalanche moderate --game G --hide M`: hides a message through a running server's admin
//! listener (`POST /games/{id}/messages/{message}/hide`), as `avalanche backup` takes a backup;
//! `avalanche moderate --reports` lists the messages players reported (`GET /reports`).

use crate::configuration::ModerateArgs;
use std::time::Duration;

/// Hides the message `args` names, or lists the reports; what to print.
pub fn run(args: &ModerateArgs) -> Result<String, String> {
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
        let server = args.server.trim_end_matches('/');
        let hiding = args.game.as_deref().zip(args.hide.as_deref());
        let mut request = match hiding {
            Some((game, message)) => {
                client.post(format!("{server}/games/{game}/messages/{message}/hide"))
            }
            None => client.get(format!("{server}/reports")),
        };
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
        match hiding {
            Some((game, message)) => Ok(format!(
                "message {message} of game {game} is hidden: its text is gone"
            )),
            None => reports_text(&body),
        }
    })
}

/// The reports of `GET /reports` (`body`), one a paragraph.
fn reports_text(body: &str) -> Result<String, String> {
    let answer: serde_json::Value =
        serde_json::from_str(body).map_err(|e| format!("the server's answer: {e}"))?;
    let reports = answer["reports"].as_array().cloned().unwrap_or_default();
    if reports.is_empty() {
        return Ok("no message is reported".to_string());
    }
    let field = |report: &serde_json::Value, name: &str| {
        report[name].as_str().unwrap_or_default().to_string()
    };
    let mut text = String::new();
    for report in &reports {
        let said = match report["text"].as_str() {
            Some(said) => format!("{said:?}"),
            None => "(hidden)".to_string(),
        };
        text.push_str(&format!(
            "game {} message {} said by {}: {said}\n  reported by {} at {}{}\n",
            field(report, "game"),
            field(report, "message"),
            field(report, "author"),
            field(report, "reporter"),
            field(report, "reported_at"),
            report["reason"]
                .as_str()
                .map(|reason| format!(": {reason:?}"))
                .unwrap_or_default(),
        ));
    }
    Ok(text.trim_end().to_string())
}

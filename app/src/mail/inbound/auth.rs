//! Who really sent a mail that reached the SMTP listener: SPF for the envelope sender (`MAIL
//! FROM`, from the connecting address and `HELO`), the message's DKIM signatures, and DMARC for
//! the domain of its `From:`, all with `mail-auth`.
//!
//! A mail whose `From:` domain publishes a DMARC policy of `reject` or `quarantine` and that
//! fails it (neither an aligned SPF pass nor an aligned DKIM pass) is refused at the end of
//! `DATA` with a `550`, so the server never sends a bounce. A domain that publishes no DMARC
//! record, or the policy `none`, is taken as before: the reply address's tag is the proof. When
//! the DMARC record cannot be looked up (a DNS failure), the mail is deferred with a `451` and
//! the sender's server tries again later.

use mail_auth::dmarc::verify::DmarcParameters;
use mail_auth::dmarc::Policy;
use mail_auth::hickory_resolver::config::{NameServerConfigGroup, ResolverConfig, ResolverOpts};
use mail_auth::spf::verify::SpfParameters;
use mail_auth::{AuthenticatedMessage, DmarcResult, MessageAuthenticator};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// The longest the checks of one mail may take: past it, DNS is taken as unreachable and the
/// mail is deferred. The sending server waits ten minutes for the answer to `DATA` (RFC 5321
/// section 4.5.3.2.6), so this is well within its patience and keeps a dead resolver from
/// holding a session.
pub const MOST_CHECK_TIME: Duration = Duration::from_secs(10);

/// Where the checks ask DNS.
#[derive(Clone, Debug)]
pub enum Resolver {
    /// The system's resolver (`/etc/resolv.conf`).
    System,
    /// One DNS server, over UDP and TCP.
    Server(SocketAddr),
}

/// What the checks say of a mail.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Taken: authenticated, or its domain asks for nothing.
    Take,
    /// Refused for good: its `From:` domain's DMARC policy rejects it.
    Refuse(String),
    /// Deferred: DNS could not be asked.
    Defer(String),
}

/// The checks, made on each mail's own small runtime (the listener's sessions are threads).
#[derive(Clone, Debug)]
pub struct Checker {
    resolver: Resolver,
}

impl Checker {
    pub fn new(resolver: Resolver) -> Checker {
        Checker { resolver }
    }

    fn authenticator(&self) -> Result<MessageAuthenticator, String> {
        match &self.resolver {
            Resolver::System => MessageAuthenticator::new_system_conf(),
            Resolver::Server(address) => MessageAuthenticator::new(
                ResolverConfig::from_parts(
                    None,
                    Vec::new(),
                    NameServerConfigGroup::from_ips_clear(&[address.ip()], address.port(), true),
                ),
                ResolverOpts::default(),
            ),
        }
        .map_err(|error| format!("no DNS resolver: {error}"))
    }

    /// Checks `raw`, which came from `ip` after `HELO helo` and `MAIL FROM:<from>` to this
    /// server, `host` (its mail domain).
    pub fn check(&self, host: &str, ip: IpAddr, helo: &str, from: &str, raw: &[u8]) -> Verdict {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(error) => return Verdict::Defer(format!("no runtime: {error}")),
        };
        runtime.block_on(async {
            tokio::time::timeout(MOST_CHECK_TIME, self.check_async(host, ip, helo, from, raw))
                .await
                .unwrap_or_else(|_| {
                    Verdict::Defer(format!(
                        "DNS did not answer within {} s",
                        MOST_CHECK_TIME.as_secs()
                    ))
                })
        })
    }

    async fn check_async(
        &self,
        host: &str,
        ip: IpAddr,
        helo: &str,
        from: &str,
        raw: &[u8],
    ) -> Verdict {
        let authenticator = match self.authenticator() {
            Ok(authenticator) => authenticator,
            Err(error) => return Verdict::Defer(error),
        };
        // A message mail-auth cannot read has no From: to check; the reader refuses it later.
        let Some(message) = AuthenticatedMessage::parse(raw) else {
            return Verdict::Take;
        };
        let from = from.trim().trim_start_matches('<').trim_end_matches('>');
        let helo = if helo.is_empty() { "unknown" } else { helo };
        // An empty envelope sender (a bounce) is checked by its HELO name (RFC 7208 section 2.4).
        let spf = if from.is_empty() {
            authenticator
                .verify_spf(SpfParameters::verify_ehlo(ip, helo, host))
                .await
        } else {
            authenticator
                .verify_spf(SpfParameters::verify_mail_from(ip, helo, host, from))
                .await
        };
        let dkim = authenticator.verify_dkim(&message).await;
        let envelope_domain = from.rsplit_once('@').map_or(helo, |(_, domain)| domain);
        let dmarc = authenticator
            .verify_dmarc(
                DmarcParameters::new(&message, &dkim, envelope_domain, &spf)
                    .with_domain_suffix_fn(organizational_domain),
            )
            .await;
        let summary = format!(
            "SPF {:?} for {envelope_domain:?}, DKIM {:?}, DMARC for {:?}: SPF {:?}, DKIM {:?}, policy {:?}",
            spf.result(),
            dkim.iter().map(|d| d.result()).collect::<Vec<_>>(),
            dmarc.domain(),
            dmarc.spf_result(),
            dmarc.dkim_result(),
            dmarc.policy(),
        );
        let passed =
            *dmarc.spf_result() == DmarcResult::Pass || *dmarc.dkim_result() == DmarcResult::Pass;
        let temporary = matches!(dmarc.spf_result(), DmarcResult::TempError(_))
            || matches!(dmarc.dkim_result(), DmarcResult::TempError(_));
        if dmarc.dmarc_record().is_some() {
            if !passed && matches!(dmarc.policy(), Policy::Reject | Policy::Quarantine) {
                return Verdict::Refuse(summary);
            }
        } else if temporary {
            return Verdict::Defer(summary);
        }
        tracing::debug!(%ip, verdict = %summary, "SMTP listener: a mail's authentication");
        Verdict::Take
    }
}

/// A domain's organizational domain (the label below its public suffix), for DMARC's relaxed
/// alignment: `mail.example.co.uk` aligns with `example.co.uk`, never with `other.co.uk`.
fn organizational_domain(domain: &str) -> &str {
    psl::domain_str(domain).unwrap_or(domain)
}

#[cfg(test)]
mod tests {
    use super::organizational_domain;

    #[test]
    fn organizational_domains_stop_at_the_public_suffix() {
        assert_eq!(organizational_domain("mail.example.co.uk"), "example.co.uk");
        assert_eq!(organizational_domain("example.org"), "example.org");
        assert_eq!(organizational_domain("a.b.example.org"), "example.org");
    }
}

//! Ratings: how the result of a rated game moves its players' ratings, as a pure function of
//! the ratings before and the places the game gave (the application folds it over the rated
//! games' results in the order of the event log). Two seats by Glicko-2, more (and Vamanos'
//! simultaneous play) by Weng-Lin, the Bayesian method OpenSkill implements, both from the
//! `skillratings` crate. Each game kind has its own pool of ratings, and each variant of a
//! game with variants.

use crate::engine::{KindInfo, Outcome};
use serde::{Deserialize, Serialize};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::{MultiTeamOutcome, Outcomes};
use utoipa::ToSchema;

/// How a rated game moves ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RatingMethod {
    /// Glicko-2 (Glickman): a rating from 1500, its deviation from 350, and a volatility.
    Glicko2,
    /// Weng-Lin (the Plackett-Luce model of OpenSkill): a rating from 25, its uncertainty
    /// from 25/3, for any number of seats ranked by place.
    WengLin,
}

impl RatingMethod {
    /// The usual method for a game of `seats` seats: none for a solitaire, Glicko-2 for two,
    /// Weng-Lin for more.
    pub fn for_seats(seats: usize) -> Option<RatingMethod> {
        match seats {
            0 | 1 => None,
            2 => Some(RatingMethod::Glicko2),
            _ => Some(RatingMethod::WengLin),
        }
    }

    /// A new player's rating.
    pub fn initial(self) -> Standing {
        match self {
            RatingMethod::Glicko2 => {
                let start = Glicko2Rating::new();
                Standing {
                    rating: start.rating,
                    deviation: start.deviation,
                    volatility: start.volatility,
                }
            }
            RatingMethod::WengLin => {
                let start = WengLinRating::new();
                Standing {
                    rating: start.rating,
                    deviation: start.uncertainty,
                    volatility: 0.0,
                }
            }
        }
    }
}

/// A player's rating in one pool: the estimate, how uncertain it is, and (Glicko-2 only) how
/// much it swings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Standing {
    pub rating: f64,
    /// Glicko-2's rating deviation, Weng-Lin's uncertainty (sigma).
    pub deviation: f64,
    /// Glicko-2's volatility; 0 under Weng-Lin.
    pub volatility: f64,
}

/// The pool a rated game of kind `info`, `variant` (its default when `None`) and `method` is
/// rated in: the kind's id, then `.` and the variant for a game that has variants
/// (`avalanche-chess.balanced`), then `.multi` for a game of more than two seats in a kind
/// whose duels are rated apart by Glicko-2 (`avalanche.multi`): the two methods' scales
/// differ, so they never share a pool.
pub fn pool(
    info: &KindInfo,
    variant: Option<&str>,
    method: RatingMethod,
    duels: Option<RatingMethod>,
) -> String {
    let mut pool = match info.variants.first() {
        None => info.id.clone(),
        Some(default) => format!("{}.{}", info.id, variant.unwrap_or(default)),
    };
    if method == RatingMethod::WengLin && duels == Some(RatingMethod::Glicko2) {
        pool.push_str(".multi");
    }
    pool
}

/// The place of each seat in a finished game (1 the best, equal places shared), or `None`
/// when the result places nobody: an abandoned solitaire, a game superseded by a takeback.
/// A draw places everyone first; otherwise the winners come first, then the others by their
/// scores where the game scores.
pub fn places(outcome: &Outcome, seats: usize) -> Option<Vec<usize>> {
    if outcome.draw {
        return Some(vec![1; seats]);
    }
    if outcome.winners.is_empty() {
        return None;
    }
    let key = |seat: usize| {
        let score = outcome
            .scores
            .as_ref()
            .and_then(|scores| scores.get(seat).copied())
            .unwrap_or(0);
        (outcome.winners.contains(&seat), score)
    };
    Some(
        (0..seats)
            .map(|seat| 1 + (0..seats).filter(|&other| key(other) > key(seat)).count())
            .collect(),
    )
}

/// The ratings after a game rated by `method`, where the seats held ratings `before` and
/// took `places` (see [`places`]), in seat order. Glicko-2 takes two seats; any other count
/// comes back unchanged.
pub fn rate(method: RatingMethod, before: &[Standing], places: &[usize]) -> Vec<Standing> {
    if before.len() != places.len() || before.len() < 2 {
        return before.to_vec();
    }
    match method {
        RatingMethod::Glicko2 => {
            let [one, two] = before else {
                return before.to_vec();
            };
            let outcome = match places[0].cmp(&places[1]) {
                std::cmp::Ordering::Less => Outcomes::WIN,
                std::cmp::Ordering::Greater => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            };
            let glicko = |s: &Standing| Glicko2Rating {
                rating: s.rating,
                deviation: s.deviation,
                volatility: s.volatility,
            };
            let (one, two) = glicko2(&glicko(one), &glicko(two), &outcome, &Glicko2Config::new());
            [one, two]
                .iter()
                .map(|r| Standing {
                    rating: r.rating,
                    deviation: r.deviation,
                    volatility: r.volatility,
                })
                .collect()
        }
        RatingMethod::WengLin => {
            let teams: Vec<[WengLinRating; 1]> = before
                .iter()
                .map(|s| {
                    [WengLinRating {
                        rating: s.rating,
                        uncertainty: s.deviation,
                    }]
                })
                .collect();
            let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
                .iter()
                .zip(places)
                .map(|(team, &place)| (&team[..], MultiTeamOutcome::new(place)))
                .collect();
            weng_lin_multi_team(&ranked, &WengLinConfig::new())
                .into_iter()
                .map(|team| {
                    let r = team.first().copied().unwrap_or_default();
                    Standing {
                        rating: r.rating,
                        deviation: r.uncertainty,
                        volatility: 0.0,
                    }
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_at_two_seats_moves_glicko2_ratings_apart_by_the_published_example() {
        let start = RatingMethod::Glicko2.initial();
        let after = rate(RatingMethod::Glicko2, &[start, start], &[1, 2]);
        assert_eq!(after[0].rating.round(), 1662.0);
        assert_eq!(after[1].rating.round(), 1338.0);
        assert_eq!(after[0].deviation.round(), 290.0);
    }

    #[test]
    fn a_draw_between_equals_leaves_their_ratings_and_narrows_the_deviation() {
        let start = RatingMethod::Glicko2.initial();
        let after = rate(RatingMethod::Glicko2, &[start, start], &[1, 1]);
        assert!((after[0].rating - 1500.0).abs() < 1e-9);
        assert!(after[0].deviation < start.deviation);
    }

    #[test]
    fn weng_lin_orders_three_seats_by_their_places() {
        let start = RatingMethod::WengLin.initial();
        let after = rate(RatingMethod::WengLin, &[start; 3], &[2, 1, 3]);
        assert!(after[1].rating > after[0].rating && after[0].rating > after[2].rating);
        assert!(after.iter().all(|s| s.deviation < start.deviation));
    }

    #[test]
    fn places_put_winners_first_then_the_others_by_score() {
        let outcome = Outcome {
            winners: vec![2],
            draw: false,
            reason: "scores".into(),
            scores: Some(vec![10, 30, 40, 30]),
        };
        assert_eq!(places(&outcome, 4), Some(vec![4, 2, 1, 2]));
        assert_eq!(places(&Outcome::draw(2, "agreed"), 2), Some(vec![1, 1]));
        assert_eq!(places(&Outcome::win(vec![], "superseded"), 2), None);
        assert_eq!(
            places(&Outcome::win(vec![1], "resigned"), 2),
            Some(vec![2, 1])
        );
    }

    #[test]
    fn a_solitaire_is_not_rated() {
        assert_eq!(RatingMethod::for_seats(1), None);
        assert_eq!(RatingMethod::for_seats(2), Some(RatingMethod::Glicko2));
        assert_eq!(RatingMethod::for_seats(6), Some(RatingMethod::WengLin));
    }
}

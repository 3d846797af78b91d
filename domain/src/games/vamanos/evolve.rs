//! Applying an event of Vamanos to the state (the fold). From revision 2 the end is an event
//! decided with the command that ends the last round; under revision 1 the fold finds it when
//! a round is scored, as it always did, so stored games fold as they were played.

use super::event::Event;
use super::score::STACK_SIZE;
use super::state::{row_index, Player, State};

impl State {
    /// Applies one event. Events were decided by the rules; anything out of range is ignored
    /// rather than trusted.
    pub fn evolve(&mut self, event: &Event) {
        match event {
            Event::RoundDealt { round, piles } => {
                self.round = *round;
                for pile in piles {
                    if let Some(player) = self.players.get_mut(pile.seat) {
                        *player = Player {
                            pile: pile.cards.clone().unwrap_or_default(),
                            ..Player::default()
                        };
                    }
                }
            }
            Event::PilesReshuffled { piles, .. } => {
                for pile in piles {
                    if let Some(player) = self.players.get_mut(pile.seat) {
                        player.pile = pile.cards.clone().unwrap_or_default();
                    }
                }
            }
            Event::Drew { seat, .. } => {
                if let Some(player) = self.players.get_mut(*seat) {
                    if !player.pile.is_empty() {
                        player.drawn = Some(player.pile.remove(0));
                    }
                }
            }
            Event::Placed {
                seat, row, card, ..
            } => {
                if let Some(player) = self.players.get_mut(*seat) {
                    if let Some(cards) = row_index(*row).and_then(|r| player.rows.get_mut(r)) {
                        player.drawn = None;
                        cards.push(*card);
                    }
                }
            }
            Event::RowStacked { seat, row, .. } => {
                if let Some(player) = self.players.get_mut(*seat) {
                    if let Some(cards) = row_index(*row).and_then(|r| player.rows.get_mut(r)) {
                        if cards.len() >= STACK_SIZE {
                            player.stacks.push(std::mem::take(cards));
                        }
                    }
                }
            }
            Event::LaidFaceDown { seat, card, .. } => {
                if let Some(player) = self.players.get_mut(*seat) {
                    player.face_down = player.drawn.take().or(*card);
                }
            }
            Event::AltaCalled { seat, .. } => self.altas.push(*seat),
            Event::RoundScored { scores, .. } => {
                for score in scores {
                    if let Some(total) = self.totals.get_mut(score.seat) {
                        *total = score.total;
                    }
                }
                self.last_scores = Some(scores.clone());
                if !self.rules.end_is_decided() {
                    self.over = self.target_passed();
                }
            }
            Event::GameEnded { .. } => self.over = true,
            Event::Retired { seat } => {
                if let Some(flag) = self.retired.get_mut(*seat) {
                    *flag = true;
                }
            }
        }
    }
}

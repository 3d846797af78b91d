//! Applying an event of Ski Runs to the state: the effects of each card, the turn order, and
//! the two ends of the game. From revision 3 the end is an event decided with the command
//! that causes it (see [`super::decide::with_end`]); under earlier revisions the fold finds
//! it here, as it always did, so stored games fold as they were played.

use super::cards::{Card, Cards};
use super::event::Event;
use super::state::{End, SkiRun, State, Step, FINAL_AVALANCHE};
use crate::engine::Seat;

pub fn evolve(state: &mut State, event: &Event) {
    match event {
        Event::Dealt {
            hands,
            draw_pile,
            lift_pile,
        } => {
            for (seat, hand) in hands.iter().enumerate().take(state.seats) {
                state.hands[seat] = hand.cards.clone().unwrap_or_default();
            }
            state.draw_pile = draw_pile.cards.clone().unwrap_or_default();
            state.lift_pile = *lift_pile;
            state.dealt = true;
            state.turn = 0;
            state.step = Step::Start;
        }
        Event::Drew { seat, lifts, cards } | Event::PickedUp { seat, lifts, cards } => {
            take(state, *seat, *lifts, cards);
            state.step = Step::Play { played: 0 };
        }
        Event::Played { seat, card } => {
            play(state, *seat, *card);
            state.step = match state.step {
                Step::Play { played } => Step::Play {
                    played: played.saturating_add(1),
                },
                // A turn without a draw step (the draw pile is empty, revision 2).
                Step::Start => Step::Play { played: 1 },
            };
        }
        Event::TurnEnded { seat } => {
            let quiet = matches!(state.step, Step::Play { played: 0 } | Step::Start);
            if quiet && state.draw_pile.is_empty() {
                if let Some(flag) = state.quiet.get_mut(*seat) {
                    *flag = true;
                }
            }
            pass_turn(state, *seat);
        }
        Event::Banked { seat, .. } => {
            if let Some(run) = state.runs.get_mut(*seat).and_then(Option::take) {
                state.banked[*seat].push(run);
            }
            state.quiet.iter_mut().for_each(|q| *q = false);
            pass_turn(state, *seat);
        }
        Event::Retired { seat, .. } => {
            let seat = *seat;
            if seat >= state.seats {
                return;
            }
            let hand = std::mem::take(&mut state.hands[seat]);
            state.discard_pile.extend(hand);
            if let Some(run) = state.runs[seat].take() {
                state.discard_pile.extend(run.cards);
            }
            state.retired[seat] = true;
            if state.turn == seat && state.end.is_none() {
                pass_turn(state, seat);
            } else {
                check_no_progress(state);
            }
        }
        Event::GameEnded { reason } => state.end = Some(*reason),
        Event::DrawPileReshuffled { draw_pile } => {
            if let Some(cards) = &draw_pile.cards {
                state.draw_pile = cards.clone();
            }
        }
    }
}

/// Takes `lifts` lift cards and the top `cards.count` cards of the draw pile into a hand.
fn take(state: &mut State, seat: Seat, lifts: usize, cards: &Cards) {
    let Some(hand) = state.hands.get_mut(seat) else {
        return;
    };
    let lifts = lifts.min(state.lift_pile);
    state.lift_pile -= lifts;
    hand.extend(std::iter::repeat_n(Card::Lift, lifts));
    let keep = state.draw_pile.len().saturating_sub(cards.count);
    hand.extend(state.draw_pile.split_off(keep));
}

fn play(state: &mut State, seat: Seat, card: Card) {
    let Some(hand) = state.hands.get_mut(seat) else {
        return;
    };
    if let Some(at) = hand.iter().position(|&c| c == card) {
        hand.remove(at);
    }
    // Playing a card is progress: the count of quiet turns starts again.
    state.quiet.iter_mut().for_each(|q| *q = false);
    match card {
        Card::Lift => state.runs[seat] = Some(SkiRun::started()),
        Card::Avalanche => {
            state.avalanches.push(seat);
            for run in state.runs.iter_mut() {
                if let Some(run) = run.take() {
                    state.discard_pile.extend(run.cards);
                }
            }
            if !state.rules.end_is_decided() && state.avalanches.len() >= FINAL_AVALANCHE {
                state.end = Some(End::FinalAvalanche);
            }
        }
        _ => {
            if let Some(run) = state.runs[seat].as_mut() {
                run.cards.push(card);
            }
        }
    }
}

/// The next remaining player's turn begins, unless the game has ended.
fn pass_turn(state: &mut State, seat: Seat) {
    state.turn = state.next_after(seat);
    state.step = Step::Start;
    check_no_progress(state);
}

/// **Ruling** made precise: the game ends when the draw pile is empty and every remaining
/// player has had a turn, since the draw pile became empty and since anyone last played or
/// banked, in which they neither played nor banked (a full round of such turns). A turn
/// counts when the draw pile is empty at its end, so the turn that draws the last card counts.
/// (Found here under revisions 1 and 2 only; see [`State::ending`].)
fn check_no_progress(state: &mut State) {
    if !state.rules.end_is_decided()
        && state.end.is_none()
        && state.draw_pile.is_empty()
        && state.remaining().all(|s| state.quiet[s])
    {
        state.end = Some(End::NoProgress);
    }
}

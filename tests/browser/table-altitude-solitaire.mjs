// The solitaire of Altitude in the browser: one seat and a spectator; see cards.mjs.
import { playGame } from './cards.mjs';

playGame('altitude', 1);

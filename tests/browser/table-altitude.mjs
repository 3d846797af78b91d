// A whole game of altitude in the browser, two seats and a spectator: see cards.mjs.
import { playGame } from './cards.mjs';

playGame('altitude', 2);

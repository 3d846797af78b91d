// A whole game of vamanos in the browser, two seats and a spectator: see cards.mjs.
import { playGame } from './cards.mjs';

playGame('vamanos', 2);

// A whole game of ski-runs in the browser, two seats and a spectator: see cards.mjs.
import { playGame } from './cards.mjs';

playGame('ski-runs', 2);

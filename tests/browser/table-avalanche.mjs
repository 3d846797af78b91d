// A whole game of avalanche in the browser, two seats and a spectator: see cards.mjs.
import { playGame } from './cards.mjs';

playGame('avalanche', 2);

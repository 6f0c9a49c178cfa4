// The realtime bus on Redis pub/sub: the shared fan-out scenarios.
import { describeBusFanout } from './fanout-scenarios.js';

describeBusFanout('redis');

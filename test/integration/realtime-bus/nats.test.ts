// The realtime bus on NATS (JetStream for messages): the shared fan-out scenarios.
import { describeBusFanout } from './fanout-scenarios.js';

describeBusFanout('nats');

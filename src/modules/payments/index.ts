// The payments module's face: its plugin (payments routes and the processor's webhook).
export { paymentsPlugin } from './payments.plugin.js';

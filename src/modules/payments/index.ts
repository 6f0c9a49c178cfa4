// The payments module's face: its plugin.
export { paymentsPlugin } from './payments.plugin.js';

// Table changes from logical replication (REALTIME_CHANGES=logical): the face other modules and
// app.ts use.
export { changeCapturePlugin } from './change-capture.plugin.js';
export { registerChangeCaptureMetrics } from './change-capture.metrics.js';
export { type CaptureStatus, type ChangeCapture, createChangeCapture } from './change-capture.service.js';

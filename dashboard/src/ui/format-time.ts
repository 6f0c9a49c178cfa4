// A timestamp of the API in the reader's locale; a missing one as a dash.
export const formatTime = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

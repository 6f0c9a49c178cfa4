-- Webhook deliveries wake the servers' workers at once: queuing deliveries also sends
-- NOTIFY realtime_webhook (one per transaction, however many messages), so a delivery no longer
-- waits for the next poll; polling stays as the safety net for retries and missed signals.
CREATE OR REPLACE FUNCTION realtime.enqueue_webhooks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
BEGIN
  IF NEW.wh_audience_count > 0 THEN
    INSERT INTO realtime.webhook_deliveries (message_id, url)
    SELECT NEW.id, u FROM realtime.channels c, unnest(c.webhook_urls) AS u
    WHERE c.id = NEW.channel_id AND c.enabled;
    PERFORM pg_notify('realtime_webhook', '');
  END IF;
  RETURN NULL;
END
$$;

// Where watch alerts may connect: the webhook's address is a caller's, so loopback, private and reserved
// ranges are refused unless the operator lists them in WATCH.allowed_networks. The SMTP server is the
// operator's own setting and is not judged here.
import { outboundPolicy, type OutboundPolicy } from '@app/outbound-address';
import type { WatchSettings } from '../config/service-config.ts';

export function alertTargets(settings: Pick<WatchSettings, 'allowedNetworks'>): OutboundPolicy {
  return outboundPolicy({
    allowedNetworks: settings.allowedNetworks,
    refusalEnd:
      'not allowed for watch alerts; the operator allows one by listing it in WATCH.allowed_networks (DNS_SERVICE_WATCH_ALLOWED_NETWORKS)',
  });
}

// The shapes of the JSON-RPC results, as the spec describes them: the interface renders them, and the
// server builds some of them (evidence, report comparison) for its own answers.
export type Level = 'INFO' | 'NOTICE' | 'WARNING' | 'ERROR' | 'CRITICAL';
export type OverallResult = 'ok' | 'warning' | 'error' | 'critical';

export interface NameServer {
  ns: string;
  ip: string;
}
export interface DsInfo {
  keytag: number | string;
  algorithm: number | string;
  digtype: number | string;
  digest: string;
}

export interface TestParams {
  domain: string;
  ipv4?: boolean;
  ipv6?: boolean;
  nameservers?: NameServer[];
  ds_info?: DsInfo[];
  profile?: string;
}

export interface TestResult {
  module: string;
  testcase: string;
  level: Level;
  message: string;
  ns?: string;
}

export interface TestResults {
  hash_id: string;
  created_at: string;
  params: TestParams;
  results: TestResult[];
  testcase_descriptions: Record<string, string>;
  /** The Compliance module's table, for a test run with the extended profile. */
  compliance?: ComplianceEntry[];
  /** The Automation module's verdict, for a test run with the extended profile. */
  parent_ds?: ParentDs;
  /** The Zone integrity module's summary, for a test run with the extended profile. */
  zone_integrity?: ZoneIntegrity;
  /** The Transport module's table (DoT, DoH), for a test run with the extended profile. */
  transports?: TransportEntry[];
}

/** What a parent should do with the zone's CDS/CDNSKEY (docs/results.schema.json, `parent_ds`). */
export interface ParentDs {
  action: 'publish' | 'remove' | 'none';
  /** DS records in presentation format, to paste at a registrar. */
  ds: string[];
  reason: string;
}

/** ZONEMD per server address, and whether the zone's names can be listed (docs/results.schema.json, zone_integrity). */
export interface ZoneIntegrity {
  zonemd?: {
    verdict: 'absent' | 'verified' | 'failed' | 'not_verifiable' | 'not_transferred';
    same_on_all_servers: boolean;
    servers: { ns: string; address: string; result: string }[];
  };
  walk?: {
    denial: 'nsec' | 'nsec3' | 'none' | 'unknown';
    listable: boolean;
    names?: number;
    complete?: boolean;
    nsec3?: { iterations: number; salt: string; opt_out: boolean; as_rfc9276_advises: boolean };
    hashes: { name: string; hash: string }[];
  };
}

/** One name server address and its encrypted transports (docs/results.schema.json, `transports`); null where the port is closed. */
export interface TransportEntry {
  ns: string;
  address: string;
  dot: {
    handshake: boolean;
    tls_version: string | null;
    alpn: string | null;
    cert_names: string[];
    cert_valid_for_ns: boolean;
    cert_not_after: string | null;
    soa_serial: number | null;
  } | null;
  doh: { get: boolean; post: boolean; soa_serial: number | null } | null;
  udp_soa_serial: number | null;
  tcp_soa_serial: number | null;
  ms: { udp: number | null; tcp: number | null; dot: number | null; doh: number | null };
}

/** One name server address and its results in ISC's DNS compliance tester's words (docs/results.schema.json). */
export interface ComplianceEntry {
  ns: string;
  address: string;
  tests: Record<string, string>;
}

export interface HistoryEntry {
  id: string;
  created_at: string;
  undelegated: boolean;
  overall_result: OverallResult;
}

/** get_test_evidence: beside get_test_results, entry for entry. */
export interface TestEvidence {
  results: { tag: string; args: Record<string, unknown> }[];
  /** The stored query log in figures (get_test_queries lists it); null when the run kept none. */
  query_log: { queries: number; servers: number; unanswered: number } | null;
  query_counts: Record<string, number>;
  ds_suggestion: { keytag: number; algorithm: number; digtype: number; digest: string; record: string }[];
  reused_until: string;
}

export interface QueryView {
  server: string;
  qname: string;
  qtype: string;
  transport: 'udp' | 'tcp';
  ms: number;
  /** NOERROR, NXDOMAIN...; absent when no reply came. */
  rcode?: string;
  /** Header bits of the reply that matter to a reader: aa, tc. */
  flags?: string[];
  answer?: string[];
  authority?: string[];
  additional?: string[];
  /** The reply could not be decoded. */
  malformed?: true;
}

/** get_test_chain (ours): the delegation and DNSSEC chain in `dnsviz grok`'s JSON shape, one key per zone, root first. */
export type ChainJson = Record<string, GrokZone>;

export interface GrokProblem {
  description: string;
  code: string;
}

export interface GrokRrsig {
  /** "signer/algorithm/key tag". */
  id: string;
  signer: string;
  algorithm: number;
  key_tag: number;
  /** "2026-11-26 01:44:48 UTC". */
  inception: string;
  expiration: string;
  status: string;
  servers: string[];
  errors?: GrokProblem[];
}

export interface GrokRrset {
  id: string;
  name: string;
  type: string;
  ttl: number;
  rdata: string[];
  servers: string[];
  rrsig?: GrokRrsig[];
}

export interface GrokNegative {
  id: string;
  proof?: { id: string; status: string; nsec?: GrokRrset[]; nsec3?: GrokRrset[] }[];
  servers: string[];
}

export interface GrokQuery {
  answer?: GrokRrset[];
  nodata?: GrokNegative[];
  nxdomain?: GrokNegative[];
  error?: { id: string; servers: string[] }[];
}

export interface GrokDnskey {
  /** "algorithm/key tag". */
  id: string;
  flags: number;
  algorithm: number;
  key_length: number;
  key_tag: number;
  ttl: number;
  servers: string[];
  /** Ours: the RRsets ("name/TYPE") it makes a valid signature over. */
  signs?: string[];
}

export interface GrokDs {
  /** "algorithm/key tag/digest type". */
  id: string;
  algorithm: number;
  key_tag: number;
  digest_type: number;
  digest: string;
  ttl: number;
  status: string;
  servers: string[];
  errors?: GrokProblem[];
  warnings?: GrokProblem[];
}

export interface GrokZone {
  status: string;
  queries?: Record<string, GrokQuery>;
  dnskey?: GrokDnskey[];
  zone?: { servers?: Record<string, { glue?: string[]; auth?: string[] }> };
  delegation?: { status: string; ds?: GrokDs[]; errors?: GrokProblem[] };
  /** Ours: what the run did not ask. */
  dnscheck_notes?: string[];
}

export interface TestActivity {
  progress: number;
  testcases_done?: number;
  testcases_total?: number;
  waiting_for?: { server: string; qname: string; qtype: string; testcase: string; seconds: number }[];
  more_waiting?: number;
}

export interface BatchStatus {
  nb_finished: number;
  finished_test_ids: string[];
  nb_running: number;
}

/** A watch as watch_list shows it (our addition). */
export interface Watch {
  watch_id: number;
  domain: string;
  schedule: string;
  language: string;
  webhook_url: string | null;
  email: string | null;
  next_run_at: string;
  last_test_id: string | null;
}

export interface Credentials {
  username: string;
  api_key: string;
}

export interface ValidationError {
  path: string;
  message: string;
}

/** A domain's DNSSEC over its recent runs, as get_dnssec_timeline gives it (our addition). */
export interface DnssecTimeline {
  domain: string;
  runs: {
    test_id: string;
    at: string;
    servers: {
      server: string;
      keys: { id: string; flags: number; signs_keys: boolean }[];
      earliest_expiry?: { expiration: string; owner: string; type: string; ttl: number };
    }[];
    parents: { server: string; ds: string[] }[];
  }[];
  alerts: ({ test_id: string; at: string; kind: string; ttl: number } & (
    | { kind: 'signature_expiry'; owner: string; type: string; expiration: string; servers: string[] }
    | { kind: 'ds_left_early' | 'key_left_early'; record: string; needed_until: string }
  ))[];
}

// What a built lab world is on disk: which server plays what, from which zone files. The namespace
// supervisor starts servers from this plan alone.
import type { Behaviour, EncryptedSpec, Implementation } from '../scenario/scenario-format.ts';
import type { Latency } from '../scenario/latency.ts';

export interface ServedZone {
  origin: string;
  /** Zone file in BIND's full text form (signed if the zone is signed). */
  file: string;
  /** Set when the file is signed (servers that sign themselves must serve it as it is); with its NSEC3 parameters if it uses NSEC3. */
  signed?: { nsec3?: { iterations: number; salt: string; optOut: boolean } };
  /**
   * Set when the server signs the zone itself (Knot's KASP, BIND's dnssec-policy): the key files (.key
   * beside .private) it signs with, and whether to publish CDS/CDNSKEY. For BIND, `keyDir` is this
   * run's own copy of them (named writes its key states there) and `file` a copy of the zone too.
   */
  kasp?: { keyFiles: string[]; cds: boolean; keyDir?: string };
}

export interface LabServer {
  name: string;
  addresses: string[];
  /** The name server software that answers for it. */
  implementation: Implementation;
  /** `responder` puts our misbehaving responder in front of the server (which then listens on the backend port). */
  engine: 'bind' | 'responder';
  behaviour: Behaviour;
  zones: ServedZone[];
  /** DoT and DoH, with who serves them (see encryptedFront); absent: neither. */
  encrypted?: EncryptedSpec & { front: 'native' | 'dnsdist' };
}

/** A server's certificate and key for its encrypted transports, as files. */
export interface TlsFiles {
  cert: string;
  key: string;
}

export interface WorldPlan {
  dir: string;
  hintsPath: string;
  namedConfPath: string;
  /** Port on which BIND answers for responder-fronted servers (same addresses). */
  backendPort: number;
  servers: LabServer[];
  /** The servers not played by BIND: one process each, started from these command lines. */
  processes: ServerProcess[];
  domains: string[];
  /** With a signed root: the root's key as a BIND `trust-anchors` statement (delv -a reads it too). */
  trustAnchorsPath?: string;
  /** Set when every server answers after a delay (each is then fronted by the responder). */
  latency?: Latency;
  /** The lab's own CA certificate (PEM), when a server offers DoT or DoH: `dnscheck --tls-ca` takes it. */
  tlsCaPath?: string;
  /** Addresses whose port 853 takes connections and never speaks (`dot: silent`). */
  silentDotAddresses?: string[];
}

/** One Knot DNS, NSD or PowerDNS process playing one lab server. */
export interface ServerProcess {
  server: string;
  implementation: Exclude<Implementation, 'bind'> | 'dnsdist';
  command: string;
  args: string[];
  /** Where its output goes. */
  logPath: string;
  /** Where it answers (the backend port when fronted by the responder), and the zones to find loaded there. */
  address: string;
  port: number;
  zones: string[];
}

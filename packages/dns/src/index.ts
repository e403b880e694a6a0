export { Name, NameError, MAX_LABEL_LENGTH, MAX_NAME_LENGTH } from './name.ts';
export { domainToAscii, IdnaError, type IdnaFault } from './idna.ts';
export {
  RRType,
  RRClass,
  Opcode,
  Rcode,
  EdnsOption,
  DnssecAlgorithm,
  DigestType,
  rrTypeNames,
  rrClassNames,
  opcodeNames,
  rcodeNames,
  typeToString,
  classToString,
  typeFromString,
  classFromString,
  type RRTypeName,
  type RRClassName,
} from './constants.ts';
export { DnsDecodeError, DnsEncodeError } from './wire/errors.ts';
export { ipFamily, ipBytes, sameIpAddress } from './wire/address.ts';
export {
  decodeMessage,
  encodeMessage,
  encodeRdataBytes,
  recordIs,
  type Message,
  type MessageInput,
  type Question,
  type ResourceRecord,
  type RecordInput,
  type Edns,
  type EdnsInput,
} from './wire/message.ts';
export { isKnownType, type Rdata, type RdataByType, type KnownType } from './wire/rdata/registry.ts';
export type { AddressData } from './wire/rdata/address-records.ts';
export type { TargetData, MxData, SoaData, SrvData, NaptrData } from './wire/rdata/name-records.ts';
export type { TxtData, HinfoData, CaaData } from './wire/rdata/text-records.ts';
export type { TlsaData, SshfpData } from './wire/rdata/fingerprint-records.ts';
export type { DsData, DnskeyData, RrsigData, NsecData, Nsec3Data, Nsec3ParamData } from './wire/rdata/dnssec-records.ts';
export type { OptData, EdnsOptionData } from './wire/rdata/opt-record.ts';
export { parseCookieOption, type CookieOption } from './wire/edns-options.ts';
export { signRequest, readTsig, replyMacValid, type TsigKey, type TsigReading } from './wire/tsig.ts';
export { query, type QueryOptions, type QueryResult, type QuestionInput, type Transport, type ServerAddress } from './transport/query.ts';
export { transferZone, type TransferOptions, type TransferResult } from './transport/transfer.ts';
export { tcpFrame, TcpFrames } from './transport/tcp-framing.ts';
export { createQuerier, type Querier } from './transport/limiter.ts';
export {
  encryptedQuery,
  type EncryptedQueryOptions,
  type EncryptedQueryResult,
  type EncryptedTransport,
} from './transport/encrypted-query.ts';
export { DOT_PORT } from './transport/tls.ts';
export { DOH_PORT, DOH_PATH } from './transport/https.ts';
export type { TlsSession, TlsCertificateInfo } from './transport/tls-session.ts';
export { keyTag } from './dnssec/key-tag.ts';
export { dsDigest, isSupportedDigestType } from './dnssec/ds.ts';
export { nsec3Hash } from './dnssec/nsec3-hash.ts';
export { canonicalRdata, signedData, signedOwner } from './dnssec/canonical.ts';
export { isSupportedAlgorithm } from './dnssec/public-key.ts';
export {
  nsecCovers,
  nsecMatches,
  nsec3Covers,
  nsec3Matches,
  nsec3OwnerHash,
  nsec3HashOf,
  wildcardOf,
  nextCloserName,
  proveNsecNameError,
  proveNsecNoData,
  proveNsec3ClosestEncloser,
  proveNsec3NameError,
  proveNsec3NoData,
  type NsecRecord,
  type Nsec3Record,
  type DenialResult,
  type DenialFailure,
} from './dnssec/denial.ts';
export { rsaKeySize, isRsaAlgorithm } from './dnssec/key-size.ts';
export {
  checkDs,
  walkChain,
  verifyWithKeys,
  rrsigRecords,
  type DsCheck,
  type ChainResult,
  type ChainFailure,
  type ChainInput,
  type DnskeyRecord,
  type RrsigRecord,
} from './dnssec/chain.ts';
export { verifyRrsig, rrsigsCovering, type VerifyResult, type VerifyFailure } from './dnssec/verify.ts';
export { base32hexEncode, base32hexDecode } from './base32hex.ts';
export { parseZoneFile, type ZoneFileOptions } from './zone-file/parse.ts';
export { ZoneFileError } from './zone-file/errors.ts';
export { recordToString, rdataToString, quoteCharacterString } from './zone-file/record-text.ts';
export { dnsVersion } from './version.ts';
export {
  parseZonemd,
  encodeZonemd,
  zoneDigest,
  verifyZonemd,
  isSupportedZonemd,
  ZONEMD_SCHEME_SIMPLE,
  type ZonemdData,
  type ZonemdVerification,
  type ZonemdRecordVerdict,
} from './dnssec/zonemd.ts';

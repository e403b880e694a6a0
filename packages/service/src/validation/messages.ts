// Our own texts for validation faults, in each of the service's languages (shared/languages.ts).
import type { Language } from '../shared/languages.ts';

export type MessageId =
  | 'missing'
  | 'unknown_property'
  | 'not_with'
  | 'not_string'
  | 'not_integer'
  | 'not_object'
  | 'not_array'
  | 'nul'
  | 'min_zero'
  | 'positive'
  | 'too_few'
  | 'too_many'
  | 'domain_empty'
  | 'domain_single'
  | 'domain_repeated_dots'
  | 'domain_leading_dot'
  | 'domain_label_long'
  | 'domain_too_long'
  | 'domain_idna'
  | 'ip'
  | 'digest'
  | 'language_form'
  | 'language_unknown'
  | 'profile_form'
  | 'profile_unknown'
  | 'username'
  | 'api_key'
  | 'client_id'
  | 'client_version'
  | 'test_id'
  | 'filter'
  | 'schedule'
  | 'webhook_url'
  | 'email'
  | 'watch_language'
  | 'queue'
  | 'webhook_address';

export type Locale = Language;

const en: Record<MessageId, string> = {
  missing: 'Missing property',
  unknown_property: 'Unknown property',
  not_with: 'Not allowed together with "{other}"',
  not_string: 'Expected a string',
  not_integer: 'Expected an integer',
  not_object: 'Expected an object',
  not_array: 'Expected an array',
  nul: 'Contains a NUL character',
  min_zero: 'Must be zero or greater',
  positive: 'Must be a positive integer',
  too_few: 'Expected at least {min} item(s)',
  too_many: 'At most {max} item(s) allowed',
  domain_empty: 'Domain name is empty.',
  domain_single: 'A domain name of one character must be a dot.',
  domain_repeated_dots: 'Domain name has repeated dots.',
  domain_leading_dot: 'Domain name starts with a dot.',
  domain_label_long: 'Domain name has a label that is too long (more than 63 characters): {label}.',
  domain_too_long: 'Domain name is too long (more than 253 characters with no final dot).',
  domain_idna: 'Domain name is not a valid internationalized name: {reason}.',
  ip: 'Not a valid IPv4 or IPv6 address',
  digest: 'Digest must be 40, 64 or 96 hexadecimal characters',
  language_form: 'Not a language tag (two lower-case letters, such as "en")',
  language_unknown: 'Unsupported language tag',
  profile_form: 'Not a valid profile name',
  profile_unknown: 'Unknown profile',
  username: 'Not a valid username',
  api_key: 'Not a valid API key',
  client_id: 'Not a valid client id',
  client_version: 'Not a valid client version',
  test_id: 'Not a valid test id (16 lower-case hexadecimal digits)',
  filter: 'Must be one of "all", "delegated" or "undelegated"',
  schedule: 'Must be "every <N>m", "every <N>h" (at most a week) or "daily HH:MM" (UTC)',
  webhook_url: 'Must be an https:// address',
  email: 'Not an e-mail address',
  watch_language: 'Must be one of da, en, es, fi, fr, nb, sl, sv',
  queue: 'Not a queue of this service (these are: {queues})',
  webhook_address: 'Points to a loopback, private or reserved address, which this service does not send alerts to',
};

const da: Record<MessageId, string> = {
  missing: 'Egenskaben mangler',
  unknown_property: 'Ukendt egenskab',
  not_with: 'Ikke tilladt sammen med »{other}«',
  not_string: 'Forventede en tekststreng',
  not_integer: 'Forventede et heltal',
  not_object: 'Forventede et objekt',
  not_array: 'Forventede en liste',
  nul: 'Indeholder et NUL-tegn',
  min_zero: 'Skal være nul eller større',
  positive: 'Skal være et positivt heltal',
  too_few: 'Forventede mindst {min} element(er)',
  too_many: 'Højst {max} element(er) tilladt',
  domain_empty: 'Domænenavnet er tomt.',
  domain_single: 'Et domænenavn på ét tegn skal være et punktum.',
  domain_repeated_dots: 'Domænenavnet har flere punktummer i træk.',
  domain_leading_dot: 'Domænenavnet begynder med et punktum.',
  domain_label_long: 'Domænenavnet har en etiket, der er for lang (mere end 63 tegn): {label}.',
  domain_too_long: 'Domænenavnet er for langt (mere end 253 tegn uden afsluttende punktum).',
  domain_idna: 'Domænenavnet er ikke et gyldigt internationaliseret navn: {reason}.',
  ip: 'Ikke en gyldig IPv4- eller IPv6-adresse',
  digest: 'Digest skal være 40, 64 eller 96 hexadecimale tegn',
  language_form: 'Ikke en sprogkode (to små bogstaver, fx »da«)',
  language_unknown: 'Sprogkoden understøttes ikke',
  profile_form: 'Ikke et gyldigt profilnavn',
  profile_unknown: 'Ukendt profil',
  username: 'Ikke et gyldigt brugernavn',
  api_key: 'Ikke en gyldig API-nøgle',
  client_id: 'Ikke et gyldigt klient-id',
  client_version: 'Ikke en gyldig klientversion',
  test_id: 'Ikke et gyldigt test-id (16 hexadecimale cifre med små bogstaver)',
  filter: 'Skal være »all«, »delegated« eller »undelegated«',
  schedule: 'Skal være »every <N>m«, »every <N>h« (højst en uge) eller »daily HH:MM« (UTC)',
  webhook_url: 'Skal være en https://-adresse',
  email: 'Ikke en e-mailadresse',
  watch_language: 'Skal være en af da, en, es, fi, fr, nb, sl, sv',
  queue: 'Ikke en kø i denne tjeneste (køerne er: {queues})',
  webhook_address: 'Peger på en loopback-, privat eller reserveret adresse, som denne tjeneste ikke sender advarsler til',
};

const es: Record<MessageId, string> = {
  missing: 'Falta la propiedad',
  unknown_property: 'Propiedad desconocida',
  not_with: 'No se admite junto con "{other}"',
  not_string: 'Se esperaba una cadena de texto',
  not_integer: 'Se esperaba un número entero',
  not_object: 'Se esperaba un objeto',
  not_array: 'Se esperaba una lista',
  nul: 'Contiene un carácter NUL',
  min_zero: 'Debe ser cero o mayor',
  positive: 'Debe ser un número entero positivo',
  too_few: 'Debe tener al menos {min} elemento(s)',
  too_many: 'Se admiten como máximo {max} elemento(s)',
  domain_empty: 'El nombre de dominio está vacío.',
  domain_single: 'Un nombre de dominio de un carácter debe ser un punto.',
  domain_repeated_dots: 'El nombre de dominio tiene puntos seguidos.',
  domain_leading_dot: 'El nombre de dominio empieza por un punto.',
  domain_label_long: 'El nombre de dominio tiene una etiqueta demasiado larga (más de 63 caracteres): {label}.',
  domain_too_long: 'El nombre de dominio es demasiado largo (más de 253 caracteres sin punto final).',
  domain_idna: 'El nombre de dominio no es un nombre internacionalizado válido: {reason}.',
  ip: 'No es una dirección IPv4 o IPv6 válida',
  digest: 'El resumen debe tener 40, 64 o 96 caracteres hexadecimales',
  language_form: 'No es una etiqueta de idioma (dos letras minúsculas, como "es")',
  language_unknown: 'Etiqueta de idioma no admitida',
  profile_form: 'No es un nombre de perfil válido',
  profile_unknown: 'Perfil desconocido',
  username: 'No es un nombre de usuario válido',
  api_key: 'No es una clave de API válida',
  client_id: 'No es un identificador de cliente válido',
  client_version: 'No es una versión de cliente válida',
  test_id: 'No es un identificador de prueba válido (16 dígitos hexadecimales en minúscula)',
  filter: 'Debe ser "all", "delegated" o "undelegated"',
  schedule: 'Debe ser "every <N>m", "every <N>h" (como mucho una semana) o "daily HH:MM" (UTC)',
  webhook_url: 'Debe ser una dirección https://',
  email: 'No es una dirección de correo electrónico',
  watch_language: 'Debe ser uno de da, en, es, fi, fr, nb, sl, sv',
  queue: 'No es una cola de este servicio (las colas son: {queues})',
  webhook_address: 'Apunta a una dirección de loopback, privada o reservada, a la que este servicio no envía alertas',
};

const fi: Record<MessageId, string> = {
  missing: 'Ominaisuus puuttuu',
  unknown_property: 'Tuntematon ominaisuus',
  not_with: 'Ei sallittu yhdessä ominaisuuden "{other}" kanssa',
  not_string: 'Odotettiin merkkijonoa',
  not_integer: 'Odotettiin kokonaislukua',
  not_object: 'Odotettiin objektia',
  not_array: 'Odotettiin listaa',
  nul: 'Sisältää NUL-merkin',
  min_zero: 'Täytyy olla vähintään nolla',
  positive: 'Täytyy olla positiivinen kokonaisluku',
  too_few: 'Alkioita täytyy olla vähintään {min}',
  too_many: 'Alkioita saa olla enintään {max}',
  domain_empty: 'Verkkotunnus on tyhjä.',
  domain_single: 'Yhden merkin verkkotunnuksen täytyy olla piste.',
  domain_repeated_dots: 'Verkkotunnuksessa on peräkkäisiä pisteitä.',
  domain_leading_dot: 'Verkkotunnus alkaa pisteellä.',
  domain_label_long: 'Verkkotunnuksessa on liian pitkä osa (yli 63 merkkiä): {label}.',
  domain_too_long: 'Verkkotunnus on liian pitkä (yli 253 merkkiä ilman loppupistettä).',
  domain_idna: 'Verkkotunnus ei ole kelvollinen kansainvälistetty nimi: {reason}.',
  ip: 'Ei ole kelvollinen IPv4- tai IPv6-osoite',
  digest: 'Tiivisteessä täytyy olla 40, 64 tai 96 heksadesimaalimerkkiä',
  language_form: 'Ei ole kielitunniste (kaksi pientä kirjainta, esim. "fi")',
  language_unknown: 'Kielitunnistetta ei tueta',
  profile_form: 'Ei ole kelvollinen profiilin nimi',
  profile_unknown: 'Tuntematon profiili',
  username: 'Ei ole kelvollinen käyttäjänimi',
  api_key: 'Ei ole kelvollinen API-avain',
  client_id: 'Ei ole kelvollinen asiakastunniste',
  client_version: 'Ei ole kelvollinen asiakasversio',
  test_id: 'Ei ole kelvollinen testitunniste (16 heksadesimaalimerkkiä pienillä kirjaimilla)',
  filter: 'Täytyy olla "all", "delegated" tai "undelegated"',
  schedule: 'Täytyy olla "every <N>m", "every <N>h" (enintään viikko) tai "daily HH:MM" (UTC)',
  webhook_url: 'Täytyy olla https://-osoite',
  email: 'Ei ole sähköpostiosoite',
  watch_language: 'Täytyy olla jokin seuraavista: da, en, es, fi, fr, nb, sl, sv',
  queue: 'Ei tämän palvelun jono (jonot ovat: {queues})',
  webhook_address: 'Osoittaa loopback-, yksityiseen tai varattuun osoitteeseen, johon tämä palvelu ei lähetä hälytyksiä',
};

const fr: Record<MessageId, string> = {
  missing: 'Propriété manquante',
  unknown_property: 'Propriété inconnue',
  not_with: 'Non admis avec « {other} »',
  not_string: 'Une chaîne de caractères est attendue',
  not_integer: 'Un nombre entier est attendu',
  not_object: 'Un objet est attendu',
  not_array: 'Une liste est attendue',
  nul: 'Contient un caractère NUL',
  min_zero: 'Doit être supérieur ou égal à zéro',
  positive: 'Doit être un entier strictement positif',
  too_few: 'Au moins {min} élément(s) attendu(s)',
  too_many: 'Au plus {max} élément(s) autorisé(s)',
  domain_empty: 'Le nom de domaine est vide.',
  domain_single: 'Un nom de domaine d’un seul caractère doit être un point.',
  domain_repeated_dots: 'Le nom de domaine contient des points consécutifs.',
  domain_leading_dot: 'Le nom de domaine commence par un point.',
  domain_label_long: 'Le nom de domaine contient un label trop long (plus de 63 caractères) : {label}.',
  domain_too_long: 'Le nom de domaine est trop long (plus de 253 caractères sans point final).',
  domain_idna: 'Le nom de domaine n’est pas un nom internationalisé valide : {reason}.',
  ip: 'Ce n’est pas une adresse IPv4 ou IPv6 valide',
  digest: 'Le condensat doit comporter 40, 64 ou 96 caractères hexadécimaux',
  language_form: 'Ce n’est pas une étiquette de langue (deux lettres minuscules, par exemple « fr »)',
  language_unknown: 'Étiquette de langue non prise en charge',
  profile_form: 'Ce n’est pas un nom de profil valide',
  profile_unknown: 'Profil inconnu',
  username: 'Ce n’est pas un nom d’utilisateur valide',
  api_key: 'Ce n’est pas une clé d’API valide',
  client_id: 'Ce n’est pas un identifiant de client valide',
  client_version: 'Ce n’est pas une version de client valide',
  test_id: 'Ce n’est pas un identifiant de test valide (16 chiffres hexadécimaux en minuscules)',
  filter: 'Doit valoir « all », « delegated » ou « undelegated »',
  schedule: 'Doit valoir « every <N>m », « every <N>h » (une semaine au plus) ou « daily HH:MM » (UTC)',
  webhook_url: 'Doit être une adresse https://',
  email: 'Ce n’est pas une adresse électronique',
  watch_language: 'Doit valoir da, en, es, fi, fr, nb, sl ou sv',
  queue: "N'est pas une file de ce service (les files sont : {queues})",
  webhook_address: "Désigne une adresse de bouclage, privée ou réservée, à laquelle ce service n'envoie pas d'alertes",
};

const nb: Record<MessageId, string> = {
  missing: 'Egenskapen mangler',
  unknown_property: 'Ukjent egenskap',
  not_with: 'Ikke tillatt sammen med «{other}»',
  not_string: 'Forventet en tekststreng',
  not_integer: 'Forventet et heltall',
  not_object: 'Forventet et objekt',
  not_array: 'Forventet en liste',
  nul: 'Inneholder et NUL-tegn',
  min_zero: 'Må være null eller større',
  positive: 'Må være et positivt heltall',
  too_few: 'Forventet minst {min} element(er)',
  too_many: 'Høyst {max} element(er) tillatt',
  domain_empty: 'Domenenavnet er tomt.',
  domain_single: 'Et domenenavn på ett tegn må være et punktum.',
  domain_repeated_dots: 'Domenenavnet har flere punktum etter hverandre.',
  domain_leading_dot: 'Domenenavnet begynner med et punktum.',
  domain_label_long: 'Domenenavnet har en etikett som er for lang (mer enn 63 tegn): {label}.',
  domain_too_long: 'Domenenavnet er for langt (mer enn 253 tegn uten avsluttende punktum).',
  domain_idna: 'Domenenavnet er ikke et gyldig internasjonalisert navn: {reason}.',
  ip: 'Ikke en gyldig IPv4- eller IPv6-adresse',
  digest: 'Digest må være 40, 64 eller 96 heksadesimale tegn',
  language_form: 'Ikke en språkkode (to små bokstaver, for eksempel «nb»)',
  language_unknown: 'Språkkoden støttes ikke',
  profile_form: 'Ikke et gyldig profilnavn',
  profile_unknown: 'Ukjent profil',
  username: 'Ikke et gyldig brukernavn',
  api_key: 'Ikke en gyldig API-nøkkel',
  client_id: 'Ikke en gyldig klient-ID',
  client_version: 'Ikke en gyldig klientversjon',
  test_id: 'Ikke en gyldig test-ID (16 heksadesimale sifre med små bokstaver)',
  filter: 'Må være «all», «delegated» eller «undelegated»',
  schedule: 'Må være «every <N>m», «every <N>h» (høyst en uke) eller «daily HH:MM» (UTC)',
  webhook_url: 'Må være en https://-adresse',
  email: 'Ikke en e-postadresse',
  watch_language: 'Må være en av da, en, es, fi, fr, nb, sl, sv',
  queue: 'Ikke en kø i denne tjenesten (køene er: {queues})',
  webhook_address: 'Peker på en loopback-, privat eller reservert adresse, som denne tjenesten ikke sender varsler til',
};

const sl: Record<MessageId, string> = {
  missing: 'Lastnost manjka',
  unknown_property: 'Neznana lastnost',
  not_with: 'Ni dovoljeno skupaj z »{other}«',
  not_string: 'Pričakovan je niz',
  not_integer: 'Pričakovano je celo število',
  not_object: 'Pričakovan je objekt',
  not_array: 'Pričakovan je seznam',
  nul: 'Vsebuje znak NUL',
  min_zero: 'Biti mora nič ali več',
  positive: 'Biti mora pozitivno celo število',
  too_few: 'Najmanjše pričakovano število elementov: {min}',
  too_many: 'Največje dovoljeno število elementov: {max}',
  domain_empty: 'Ime domene je prazno.',
  domain_single: 'Ime domene z enim samim znakom mora biti pika.',
  domain_repeated_dots: 'Ime domene ima več zaporednih pik.',
  domain_leading_dot: 'Ime domene se začne s piko.',
  domain_label_long: 'Ime domene ima predolgo oznako (več kot 63 znakov): {label}.',
  domain_too_long: 'Ime domene je predolgo (več kot 253 znakov brez končne pike).',
  domain_idna: 'Ime domene ni veljavno internacionalizirano ime: {reason}.',
  ip: 'Ni veljaven naslov IPv4 ali IPv6',
  digest: 'Povzetek mora imeti 40, 64 ali 96 šestnajstiških znakov',
  language_form: 'Ni oznaka jezika (dve mali črki, na primer »sl«)',
  language_unknown: 'Oznaka jezika ni podprta',
  profile_form: 'Ni veljavno ime profila',
  profile_unknown: 'Neznan profil',
  username: 'Ni veljavno uporabniško ime',
  api_key: 'Ni veljaven ključ API',
  client_id: 'Ni veljaven ID odjemalca',
  client_version: 'Ni veljavna različica odjemalca',
  test_id: 'Ni veljaven ID testa (16 šestnajstiških števk z malimi črkami)',
  filter: 'Biti mora »all«, »delegated« ali »undelegated«',
  schedule: 'Biti mora »every <N>m«, »every <N>h« (največ en teden) ali »daily HH:MM« (UTC)',
  webhook_url: 'Biti mora naslov https://',
  email: 'Ni e-poštni naslov',
  watch_language: 'Biti mora eden od da, en, es, fi, fr, nb, sl, sv',
  queue: 'Ni vrsta te storitve (vrste so: {queues})',
  webhook_address: 'Kaže na povratni, zasebni ali rezervirani naslov, na katerega ta storitev ne pošilja opozoril',
};

const sv: Record<MessageId, string> = {
  missing: 'Egenskapen saknas',
  unknown_property: 'Okänd egenskap',
  not_with: 'Inte tillåtet tillsammans med ”{other}”',
  not_string: 'Förväntade en textsträng',
  not_integer: 'Förväntade ett heltal',
  not_object: 'Förväntade ett objekt',
  not_array: 'Förväntade en lista',
  nul: 'Innehåller ett NUL-tecken',
  min_zero: 'Måste vara noll eller större',
  positive: 'Måste vara ett positivt heltal',
  too_few: 'Förväntade minst {min} element',
  too_many: 'Högst {max} element tillåts',
  domain_empty: 'Domännamnet är tomt.',
  domain_single: 'Ett domännamn med ett tecken måste vara en punkt.',
  domain_repeated_dots: 'Domännamnet har flera punkter i rad.',
  domain_leading_dot: 'Domännamnet börjar med en punkt.',
  domain_label_long: 'Domännamnet har en etikett som är för lång (mer än 63 tecken): {label}.',
  domain_too_long: 'Domännamnet är för långt (mer än 253 tecken utan avslutande punkt).',
  domain_idna: 'Domännamnet är inte ett giltigt internationaliserat namn: {reason}.',
  ip: 'Inte en giltig IPv4- eller IPv6-adress',
  digest: 'Digest måste bestå av 40, 64 eller 96 hexadecimala tecken',
  language_form: 'Inte en språkkod (två små bokstäver, till exempel ”sv”)',
  language_unknown: 'Språkkoden stöds inte',
  profile_form: 'Inte ett giltigt profilnamn',
  profile_unknown: 'Okänd profil',
  username: 'Inte ett giltigt användarnamn',
  api_key: 'Inte en giltig API-nyckel',
  client_id: 'Inte ett giltigt klient-id',
  client_version: 'Inte en giltig klientversion',
  test_id: 'Inte ett giltigt test-id (16 hexadecimala siffror med gemener)',
  filter: 'Måste vara ”all”, ”delegated” eller ”undelegated”',
  schedule: 'Måste vara ”every <N>m”, ”every <N>h” (högst en vecka) eller ”daily HH:MM” (UTC)',
  webhook_url: 'Måste vara en https://-adress',
  email: 'Inte en e-postadress',
  watch_language: 'Måste vara en av da, en, es, fi, fr, nb, sl, sv',
  queue: 'Inte en kö i den här tjänsten (köerna är: {queues})',
  webhook_address: 'Pekar på en loopback-, privat eller reserverad adress, som den här tjänsten inte skickar larm till',
};

const catalogue: Record<Locale, Record<MessageId, string>> = { da, en, es, fi, fr, nb, sl, sv };

export function isLocale(value: string): value is Locale {
  return value in catalogue;
}

export function validationMessage(id: MessageId, locale: Locale, args: Record<string, string | number> = {}): string {
  return catalogue[locale][id].replace(/\{(\w+)\}/g, (whole, name: string) => (name in args ? String(args[name]) : whole));
}

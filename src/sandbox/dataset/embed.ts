/**
 * Text vectors for the sandbox: pure, deterministic, dependency-free.
 *
 * Both embeddings are "feature hashing": every word feature (a word, a character 3-gram) adds
 * ±weight to one of VECTOR_DIMS coordinates chosen by a seeded 32-bit hash; the sign comes from
 * another bit of the same hash so that collisions cancel out on average instead of piling up.
 * The few heavy features (title concepts, company topics) have coordinates of their own, ahead of
 * the hashed ones. Vectors are unit length, so cosine similarity is a dot product.
 *
 * - Titles: word tokens + character 3-grams (typos, plurals, "Mgr"/"Manager") + concept features
 *   from a synonym taxonomy (level, function, role), which is what puts "CMO" on top of
 *   "Chief Marketing Officer" and "Head of Marketing" next to "VP Marketing". Concepts have
 *   coordinates of their own (only words are hashed), and the function weighs more than the
 *   level: a title is near titles of the same function first, then of the same seniority.
 * - Company texts: two parts, each unit length, mixed TOPIC_SHARE : 1 - TOPIC_SHARE.
 *   Topics: one dedicated coordinate per industry (no collisions); every word spreads its weight
 *   over the industries whose offerings or name use it, so "hospital" or "recruiting agency"
 *   land on the right industry even though they share few words with any one description.
 *   Words: content words and bigrams hashed into the remaining coordinates, weighted by what kind
 *   of word they are (what a company sells counts more than to whom), which tells businesses of
 *   one industry apart ("cloud security software" vs "email security gateway").
 */
import { INDUSTRIES } from "./vocab/industries";
import { ABBREVIATIONS, type Concept, LEVEL_RANK, TITLE_PHRASES } from "./vocab/title-synonyms";

export const VECTOR_DIMS = 128;

const HASH_SEED = 0x5bd1e995;

/** FNV-1a over UTF-16 code units, then murmur3's finaliser so that every output bit is well mixed. */
export function hash32(text: string, seed = HASH_SEED): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The coordinate comes from the hash (within [first, VECTOR_DIMS)), the sign from its top bit.
 */
function addHashed(vec: Float64Array, h: number, weight: number, first = 0): void {
  const index = first + (h % (VECTOR_DIMS - first));
  vec[index] = (vec[index] ?? 0) + (h & 0x80000000 ? -weight : weight);
}

function norm(vec: Float64Array, from = 0, to = vec.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += (vec[i] ?? 0) ** 2;
  return Math.sqrt(sum);
}

function toUnit(vec: Float64Array): Float32Array {
  const length = norm(vec);
  const out = new Float32Array(vec.length);
  if (length === 0) return out;
  for (let i = 0; i < vec.length; i++) out[i] = (vec[i] ?? 0) / length;
  return out;
}

/** 1 - cosine similarity; 1 when either vector is all zeros. */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 1;
  return 1 - dot / Math.sqrt(na * nb);
}

// ---------------------------------------------------------------------------------------------
// Shared text normalisation

/** Lower-case ASCII words: accents dropped, "&" and punctuation turned into word breaks. */
export function tokenize(text: string): string[] {
  const ascii = text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/fp\s*&\s*a/g, "fpa")
    .replace(/r\s*&\s*d/g, "rd")
    .replace(/c\+\+/g, "cpp")
    .replace(/c#/g, "csharp")
    .replace(/\.net\b/g, "dotnet")
    .replace(/\bco-(?=[a-z])/g, "co ");
  return ascii.split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/** Light English stemmer: enough to make plurals and "-ing/-ed" forms meet. */
export function stem(token: string): string {
  if (token.length <= 3) return token;
  if (token.endsWith("ies") && token.length > 4) return `${token.slice(0, -3)}y`;
  if (token.endsWith("sses")) return token.slice(0, -2);
  if (token.endsWith("ss") || token.endsWith("us") || token.endsWith("is")) return token;
  if (token.endsWith("s")) return token.slice(0, -1);
  return token;
}

// ---------------------------------------------------------------------------------------------
// Titles

const TITLE_STOP = new Set([
  "of",
  "the",
  "and",
  "for",
  "to",
  "in",
  "at",
  "a",
  "an",
  "with",
  "on",
  "i",
  "ii",
  "iii",
  "iv",
]);
/** Tokens that mean nothing on their own in a title but are no specialisation either. */
const TITLE_NUMERAL = /^[0-9]+$/;

/** Title tokens after abbreviation expansion and stemming. */
export function titleTokens(title: string): string[] {
  const out: string[] = [];
  for (const raw of tokenize(title)) {
    // Own keys only: a title such as "constructor" must not find Object's prototype.
    const expanded = Object.hasOwn(ABBREVIATIONS, raw) ? ABBREVIATIONS[raw] : undefined;
    const parts = expanded ? expanded.split(" ") : [raw];
    for (const part of parts) {
      if (TITLE_STOP.has(part) || TITLE_NUMERAL.test(part)) continue;
      out.push(stem(part));
    }
  }
  return out;
}

interface CompiledPhrase {
  tokens: string[];
  concepts: readonly Concept[];
  weight: number;
}

/** Phrase rules indexed by first token, longest first. */
const PHRASES_BY_HEAD: Map<string, CompiledPhrase[]> = (() => {
  const map = new Map<string, CompiledPhrase[]>();
  for (const [phrase, concepts, weight] of TITLE_PHRASES) {
    const tokens = phrase.split(" ").map(stem);
    const head = tokens[0] ?? "";
    const bucket = map.get(head) ?? [];
    bucket.push({ tokens, concepts, weight: weight ?? 1 });
    map.set(head, bucket);
  }
  for (const bucket of map.values()) bucket.sort((a, b) => b.tokens.length - a.tokens.length);
  return map;
})();

/**
 * Tuned weights (see tests/unit/sandbox-dataset/embed.test.ts for the distances they give). The
 * function outweighs the level, so that the default match level keeps to the job's function
 * before its seniority (tests/unit/sandbox-dataset/title-precision.test.ts).
 */
const TITLE_WEIGHTS = {
  /** A word the taxonomy knows (level or function word): its concept carries the meaning. */
  knownToken: 0.55,
  /** Any other word: a specialisation ("digital", "backend") that tells titles apart. */
  specialToken: 1.3,
  /** All character 3-grams of one token together. */
  trigramsPerToken: 0.45,
  function: 1.7,
  level: 1.2,
  role: 1.1,
  /** Share of a level's weight given to each neighbouring rung of the ladder. */
  levelNeighbour: 0.45,
  /**
   * Share of the level weight for the entry rung of a title that names no level: nearly all such
   * titles in the vocabulary ("Recruiter", "Accountant") are individual contributors.
   */
  impliedLevel: 0.6,
};

/**
 * Coordinates of their own for the concepts (functions, roles, rungs of the level ladder): hashed
 * among the words, a concept could collide with a word and, say, put "VP of Implementation" next
 * to "VP Marketing". Words and 3-grams are hashed into the coordinates after these.
 */
const CONCEPT_INDEX: ReadonlyMap<string, number> = (() => {
  const keys = new Set<string>();
  for (const [, concepts] of TITLE_PHRASES)
    for (const concept of concepts) if (!concept.startsWith("lvl:")) keys.add(concept);
  for (const rank of Object.values(LEVEL_RANK))
    for (const rung of [rank - 1, rank, rank + 1]) keys.add(`lvl:${rung}`);
  return new Map([...keys].map((key, i) => [key, i]));
})();
const CONCEPT_DIMS = CONCEPT_INDEX.size;

function addConcept(vec: Float64Array, key: string, weight: number): void {
  const index = CONCEPT_INDEX.get(key);
  if (index === undefined) throw new Error(`title concept ${key} has no coordinate`);
  vec[index] = (vec[index] ?? 0) + weight;
}

function addWordFeature(vec: Float64Array, feature: string, weight: number): void {
  addHashed(vec, hash32(feature), weight, CONCEPT_DIMS);
}

export interface TitleAnalysis {
  tokens: string[];
  known: boolean[];
  concepts: Map<Concept, number>;
}

/** Tokens of a title and the concepts its phrases carry (used by the embedding and by tests). */
export function analyzeTitle(title: string): TitleAnalysis {
  const tokens = titleTokens(title);
  const known = tokens.map(() => false);
  const concepts = new Map<Concept, number>();
  let i = 0;
  while (i < tokens.length) {
    const candidates = PHRASES_BY_HEAD.get(tokens[i] ?? "") ?? [];
    const match = candidates.find((p) => p.tokens.every((t, k) => tokens[i + k] === t));
    if (!match) {
      i++;
      continue;
    }
    for (const concept of match.concepts)
      concepts.set(concept, Math.max(concepts.get(concept) ?? 0, match.weight));
    for (let k = 0; k < match.tokens.length; k++) known[i + k] = true;
    i += match.tokens.length;
  }
  return { tokens, known, concepts };
}

export function embedTitle(text: string): Float32Array {
  const w = TITLE_WEIGHTS;
  const vec = new Float64Array(VECTOR_DIMS);
  const { tokens, known, concepts } = analyzeTitle(text);

  tokens.forEach((token, i) => {
    addWordFeature(vec, `t:${token}`, known[i] ? w.knownToken : w.specialToken);
    const padded = `^${token}$`;
    const grams = padded.length - 2;
    const gramWeight = (w.trigramsPerToken * (known[i] ? w.knownToken : w.specialToken)) / Math.sqrt(grams);
    for (let k = 0; k < grams; k++) addWordFeature(vec, `g:${padded.slice(k, k + 3)}`, gramWeight);
  });

  // Several functions (e.g. "Sales Engineer") share the function weight instead of doubling it.
  const functions = [...concepts].filter(([c]) => c.startsWith("fn:"));
  const fnNorm = Math.sqrt(functions.reduce((s, [, v]) => s + v * v, 0)) || 1;
  for (const [concept, strength] of functions) {
    addConcept(vec, concept, (w.function * strength) / Math.max(1, fnNorm));
  }

  // Levels light their rung of the ladder and, more faintly, the neighbouring rungs; a title with
  // two levels ("Founder & CEO") shares the weight between them.
  const levels = [...concepts].filter(([c]) => c.startsWith("lvl:"));
  if (levels.length === 0 && tokens.length > 0) levels.push(["lvl:entry", w.impliedLevel]);
  const lvlNorm = Math.sqrt(levels.reduce((s, [, v]) => s + v * v, 0)) || 1;
  for (const [concept, strength] of levels) {
    const rank = LEVEL_RANK[concept.slice(4)] ?? 0;
    const weight = (w.level * strength) / Math.max(1, lvlNorm);
    addConcept(vec, `lvl:${rank}`, weight);
    addConcept(vec, `lvl:${rank - 1}`, weight * w.levelNeighbour);
    addConcept(vec, `lvl:${rank + 1}`, weight * w.levelNeighbour);
  }

  for (const [concept, strength] of concepts) {
    if (concept.startsWith("role:")) addConcept(vec, concept, w.role * strength);
  }
  return toUnit(vec);
}

// ---------------------------------------------------------------------------------------------
// Company texts

/** Function words and the generic vocabulary every company description shares. */
const COMPANY_STOP = new Set(
  (
    "a an and are as at be by for from has have help helps helping in into is it its of on or our " +
    "the their them they this to with who that which also more than most each all any one can will " +
    "company companies firm provide provides providing provider offer offers offering build builds " +
    "develop develops deliver delivers serve serves serving client clients customer customers team " +
    "teams rely use uses using work works based across around worldwide specialize specializes " +
    "specializing solution solutions such through well way ways so get make built designed " +
    "organization organizations"
  ).split(" "),
);

/** A few spellings users type that the descriptions write differently. */
const COMPANY_SYNONYMS: Readonly<Record<string, string>> = {
  cybersecurity: "security",
  cyber: "security",
  infosec: "security",
  saas: "software",
  ai: "artificial intelligence",
  ml: "machine learning",
  fintech: "financial payment",
  healthtech: "health care",
  edtech: "online learning",
  hr: "human resources",
  crm: "customer relationship management",
  erp: "enterprise resource planning",
  ecommerce: "online shopping",
};

function companyTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of tokenize(text)) {
    const expanded = Object.hasOwn(COMPANY_SYNONYMS, raw) ? COMPANY_SYNONYMS[raw] : undefined;
    for (const part of expanded ? expanded.split(" ") : [raw]) {
      if (COMPANY_STOP.has(part) || part.length < 2) continue;
      out.push(stem(part));
    }
  }
  return out;
}

/**
 * Word weights from the dataset's own vocabulary: words that say what a company does (its
 * offerings and its industry) weigh most; words about its customers and promises less; a word
 * the vocabulary never uses (only queries have those) sits in between.
 */
const COMPANY_WORD_WEIGHT: Map<string, number> = (() => {
  const weights = new Map<string, number>();
  const set = (text: string, weight: number) => {
    for (const token of companyTokens(text)) weights.set(token, Math.max(weights.get(token) ?? 0, weight));
  };
  for (const industry of INDUSTRIES) {
    for (const text of [...industry.customers, ...industry.outcomes]) set(text, 0.35);
  }
  for (const industry of INDUSTRIES) {
    set(industry.name, 0.8);
    for (const text of industry.offerings) set(text, 1);
  }
  return weights;
})();
const UNKNOWN_WORD_WEIGHT = 0.7;
const BIGRAM_FACTOR = 0.7;

/** Coordinates 0 .. TOPIC_DIMS-1 are the industries; words are hashed into the others. */
const TOPIC_DIMS = INDUSTRIES.length;
/** Share of the squared length given to the topic part. */
const TOPIC_SHARE = 0.6;

/**
 * For each word of an offering or an industry name: the industries that use it, each with
 * 1 / (number of such industries), so that a specific word ("ransomware") points at one industry
 * and a common one ("software") spreads thin.
 */
const WORD_TOPICS: Map<string, { topic: number; share: number }[]> = (() => {
  const users = new Map<string, Set<number>>();
  INDUSTRIES.forEach((industry, topic) => {
    for (const text of [industry.name, ...industry.offerings]) {
      for (const token of companyTokens(text)) {
        const set = users.get(token) ?? new Set<number>();
        set.add(topic);
        users.set(token, set);
      }
    }
  });
  const out = new Map<string, { topic: number; share: number }[]>();
  for (const [token, set] of users)
    out.set(
      token,
      [...set].map((topic) => ({ topic, share: 1 / set.size })),
    );
  return out;
})();

/**
 * Hashed features (words and bigrams) of one sentence with their weights, and its topic weights.
 * Generated descriptions reuse the same sentences many times, so results are memoised (bounded,
 * cleared when full).
 */
interface SentenceFeatures {
  hashes: number[];
  weights: number[];
  topics: { topic: number; weight: number }[];
}
const sentenceCache = new Map<string, SentenceFeatures>();
const SENTENCE_CACHE_LIMIT = 20_000;

function sentenceFeatures(sentence: string): SentenceFeatures {
  const cached = sentenceCache.get(sentence);
  if (cached) return cached;
  const tokens = companyTokens(sentence);
  const tokenWeights = tokens.map((t) => COMPANY_WORD_WEIGHT.get(t) ?? UNKNOWN_WORD_WEIGHT);
  const result: SentenceFeatures = { hashes: [], weights: [], topics: [] };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const weight = tokenWeights[i] ?? UNKNOWN_WORD_WEIGHT;
    result.hashes.push(hash32(`w:${token}`));
    result.weights.push(weight);
    // Bigrams never straddle two sentences.
    if (i + 1 < tokens.length) {
      result.hashes.push(hash32(`b:${token} ${tokens[i + 1]}`));
      result.weights.push(BIGRAM_FACTOR * Math.min(weight, tokenWeights[i + 1] ?? 0));
    }
    for (const { topic, share } of WORD_TOPICS.get(token) ?? [])
      result.topics.push({ topic, weight: weight * share });
  }
  if (sentenceCache.size >= SENTENCE_CACHE_LIMIT) sentenceCache.clear();
  sentenceCache.set(sentence, result);
  return result;
}

export function embedCompanyText(text: string): Float32Array {
  const vec = new Float64Array(VECTOR_DIMS);
  // Word features are keyed by their 32-bit hash; a repeated feature counts sub-linearly.
  const counts = new Map<number, number>();
  const weights = new Map<number, number>();
  for (const sentence of text.split(/[.;:!?]+/)) {
    const features = sentenceFeatures(sentence.trim());
    for (let k = 0; k < features.hashes.length; k++) {
      const h = features.hashes[k] as number;
      counts.set(h, (counts.get(h) ?? 0) + 1);
      weights.set(h, features.weights[k] ?? 0);
    }
    for (const { topic, weight } of features.topics) vec[topic] = (vec[topic] ?? 0) + weight;
  }
  for (const [h, count] of counts)
    addHashed(vec, h, (weights.get(h) ?? 0) * (1 + Math.log(count)), TOPIC_DIMS);

  // Give each part its share of the length (a part may be empty, e.g. a query of unknown words).
  const topicNorm = norm(vec, 0, TOPIC_DIMS);
  const wordNorm = norm(vec, TOPIC_DIMS);
  const topicScale = topicNorm > 0 ? Math.sqrt(wordNorm > 0 ? TOPIC_SHARE : 1) / topicNorm : 0;
  const wordScale = wordNorm > 0 ? Math.sqrt(topicNorm > 0 ? 1 - TOPIC_SHARE : 1) / wordNorm : 0;
  const out = new Float32Array(VECTOR_DIMS);
  for (let i = 0; i < VECTOR_DIMS; i++) out[i] = (vec[i] ?? 0) * (i < TOPIC_DIMS ? topicScale : wordScale);
  return out;
}

import { ByteLru } from '../core/lru'
import { stringBytes } from '../core/memory-budget'
import type { MessageRow } from '../messages'
import { matchTerms } from '../text/keywords'
import { hashTerms } from '../text/term-hashes'
import { countTokens, renderLine } from '../text/token-count'
import { extractMentions } from './analyzer'

/** What the builder derives from a message's text, once. */
export interface TextFeatures {
  /** The words and name they were derived from. */
  userName: string
  content: string
  /** Its `matchTerms`, hashed (`hashTerms`): kept for many messages, they must be small. */
  terms: Int32Array
  mentions: string[]
  /** Counted when first asked for: only the messages that may be shown need it. */
  tokens?: number
}

/** The cap when none is given (a standalone builder, tests). */
const DEFAULT_CAP_BYTES = 8 * 2 ** 20

/** What features take: the object, the strings (counted even when a held row shares them), the terms' buffer. */
function featuresBytes(features: TextFeatures): number {
  let bytes = 120 + stringBytes(features.userName) + stringBytes(features.content) + 100 + features.terms.byteLength
  for (const mention of features.mentions) bytes += 8 + stringBytes(mention)
  return bytes
}

/** The features of messages by row id, kept across builds, the least recently used dropped past `capBytes`. */
export class TextFeatureCache {
  private readonly texts: ByteLru<TextFeatures>

  constructor(capBytes = DEFAULT_CAP_BYTES) {
    this.texts = new ByteLru(capBytes, featuresBytes)
  }

  held(): { bytes: number; entries: number } {
    return this.texts.held()
  }

  of(row: MessageRow): TextFeatures {
    let features = this.texts.get(row.id)
    // an edited message is analysed again
    if (features?.content !== row.content || features.userName !== row.userName) {
      features = {
        userName: row.userName,
        content: row.content,
        terms: hashTerms(matchTerms(row.content)),
        mentions: extractMentions(row.content),
      }
      this.texts.set(row.id, features)
    }
    return features
  }

  /** The tokens of the message's rendered line. */
  tokensOf(row: MessageRow): number {
    const features = this.of(row)
    return (features.tokens ??= countTokens(renderLine(row.userName, row.content)))
  }
}

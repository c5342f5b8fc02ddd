import { Lru } from '../core/lru'
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

/** The features of messages by row id, kept across builds. */
export class TextFeatureCache {
  private readonly texts = new Lru<TextFeatures>(32768)

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

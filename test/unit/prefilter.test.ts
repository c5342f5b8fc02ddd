import { describe, expect, it } from 'vitest'
import type { Turn } from '../../src/facts/judge'
import { prefilter } from '../../src/facts/prefilter'

const user = (content: string, name = '小明'): Turn => ({ role: 'user', name, content })
const bot = (content: string): Turn => ({ role: 'assistant', name: 'bot', content })
const prefixes = ['/', '.', '。']

describe('prefilter', () => {
  it('passes a dialogue with a real user statement', () => {
    expect(prefilter([user('我下周三要去上海出差'), bot('好的，一路顺风')], prefixes)).toEqual({ pass: true })
    expect(prefilter([user('My sister is visiting next week')], prefixes)).toEqual({ pass: true })
  })

  it('passes when one of several user turns has content', () => {
    expect(prefilter([user('哈哈哈'), user('[图片]'), user('我最近在学日语')], prefixes)).toEqual({ pass: true })
  })

  it('fails with empty when there are no user turns or they are blank', () => {
    expect(prefilter([], prefixes)).toEqual({ pass: false, reason: 'empty' })
    expect(prefilter([bot('我是机器人，我喜欢猫')], prefixes)).toEqual({ pass: false, reason: 'empty' })
    expect(prefilter([user('   \n')], prefixes)).toEqual({ pass: false, reason: 'empty' })
  })

  it('fails with emoji for emoji, punctuation and media placeholders', () => {
    for (const text of ['😂😂😂', '？？？', '[图片]', '[image] 🎉', '[CQ:face,id=178]', '<img src="https://x/y.png"/>', '。。。！']) {
      expect(prefilter([user(text)], []), text).toEqual({ pass: false, reason: 'emoji' })
    }
  })

  it('fails with command for prefixed commands and the plugin command names', () => {
    expect(prefilter([user('/help'), bot('可用指令：…')], prefixes)).toEqual({ pass: false, reason: 'command' })
    expect(prefilter([user('．memory.list')], prefixes)).toEqual({ pass: false, reason: 'command' })
    expect(prefilter([user('memory.forget 3')], prefixes)).toEqual({ pass: false, reason: 'command' })
    expect(prefilter([user('memory')], [])).toEqual({ pass: false, reason: 'command' })
  })

  it('ignores an empty command prefix instead of treating everything as a command', () => {
    expect(prefilter([user('我喜欢打羽毛球')], [''])).toEqual({ pass: true })
  })

  it('does not mistake words that merely start with memory for a command', () => {
    expect(prefilter([user('memorylane is my favourite band')], [])).toEqual({ pass: true })
  })

  it('fails with ack for short acknowledgements in Chinese and English', () => {
    for (const text of [
      '好',
      '好的',
      '嗯嗯',
      '哦',
      '哈哈哈哈哈',
      '哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈',
      'ok',
      'OK!',
      'Okay.',
      'thanks',
      'Thank you!',
      '谢谢~',
      '收到',
      'lol',
      '666',
      '好的谢谢',
      'ok thanks 😊',
      '草',
      'kk',
    ]) {
      expect(prefilter([user(text)], prefixes), text).toEqual({ pass: false, reason: 'ack' })
    }
  })

  it('lets short messages with content through', () => {
    for (const text of ['我叫小明', '好想吃火锅', 'I am 25', '明天考试', 'ok but my exam is on Monday']) {
      expect(prefilter([user(text)], prefixes), text).toEqual({ pass: true })
    }
  })

  it('reports the weightiest kind of noise when kinds are mixed', () => {
    expect(prefilter([user('哈哈'), user('/roll')], prefixes)).toEqual({ pass: false, reason: 'command' })
    expect(prefilter([user('[图片]'), user('哈哈')], prefixes)).toEqual({ pass: false, reason: 'ack' })
    expect(prefilter([user(''), user('😅')], prefixes)).toEqual({ pass: false, reason: 'emoji' })
  })
})

import { describe, expect, it } from 'vitest'
import { h } from 'koishi'
import { mentions, renderPlainText } from '../../src/capture/render'

describe('renderPlainText', () => {
  it('keeps text and renders mentions, media and faces as short placeholders', () => {
    const elements = h.parse('<at id="514" name="小助手"/> 看看这个<img src="https://x/y.png"/><face id="1"/>哈哈')
    expect(renderPlainText(elements)).toBe('@小助手 看看这个[图片][表情]哈哈')
    expect(renderPlainText(elements, 'en')).toBe('@小助手 看看这个[image][sticker]哈哈')
  })

  it('leaves quotes out of the text', () => {
    const elements = h.parse('<quote id="99"><author id="1"/>原消息</quote>同意')
    expect(renderPlainText(elements)).toBe('同意')
  })

  it('renders an @all and unknown wrappers by their children', () => {
    expect(renderPlainText(h.parse('<at type="all"/> 开会了 <b>今晚八点</b>'))).toBe('@all 开会了 今晚八点')
  })

  it('leaves out mentions of the bot when asked to', () => {
    expect(renderPlainText(h.parse('<at id="514"/> 我喜欢吃寿司 <at id="7" name="小红"/>'), 'zh', '514')).toBe('我喜欢吃寿司 @小红')
  })

  it('tells whether the bot is mentioned', () => {
    expect(mentions(h.parse('<at id="514"/> hi'), '514')).toBe(true)
    expect(mentions(h.parse('<at id="1"/> hi'), '514')).toBe(false)
  })
})

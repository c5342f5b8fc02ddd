import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { generateStructured, StructuredOutputError } from '../../src/providers/structured'
import { ProviderError } from '../../src/providers/types'
import type { Logger } from '../../src/core/observability'
import { Counters } from '../../src/core/observability'
import { FakeLLM } from '../fakes/llm'

class RecordingLogger implements Logger {
  lines: { level: string; text: string }[] = []
  private push =
    (level: string) =>
    (format: any, ...args: any[]) =>
      this.lines.push({ level, text: [format, ...args].join(' ') })
  debug = this.push('debug')
  info = this.push('info')
  warn = this.push('warn')
  error = this.push('error')
  above(level: 'info') {
    return this.lines.filter((l) => l.level !== 'debug' && (level === 'info' || l.level === level))
  }
}

const Decision = z.object({ should_remember: z.boolean(), reason: z.string().optional() })
const SECRET = '我的银行卡密码是 123456'
const prompt = `Decide.\nConversation:\n小明: ${SECRET}`

describe('generateStructured', () => {
  it('asks for JSON mode and returns the validated value', async () => {
    const llm = new FakeLLM(['```json\n{"should_remember": true, "reason": "plans"}\n```'])
    const counters = new Counters()
    const value = await generateStructured(llm, prompt, Decision, {
      label: 'judge.decide',
      counters,
      system: 'sys',
      temperature: 0.1,
      jsonSchema: { type: 'object' },
    })
    expect(value).toEqual({ should_remember: true, reason: 'plans' })
    expect(llm.calls).toHaveLength(1)
    expect(llm.calls[0].options).toEqual({ json: true, system: 'sys', temperature: 0.1, schema: { type: 'object' } })
    expect(counters.snapshot()).toEqual({})
  })

  it('takes the candidate the schema accepts, without a retry, when an example of the format comes first', async () => {
    const llm = new FakeLLM(['The format is {"should_remember": "true or false"}; mine: {"should_remember": false, "reason": "chat"}'])
    const counters = new Counters()
    expect(await generateStructured(llm, prompt, Decision, { label: 'judge.decide', counters })).toEqual({
      should_remember: false,
      reason: 'chat',
    })
    expect(llm.calls).toHaveLength(1)
    expect(counters.snapshot()).toEqual({})
  })

  it('retries once, showing the model its previous answer and the error', async () => {
    const llm = new FakeLLM(['{"should_remember": "yes"}', '{"should_remember": true}'])
    const counters = new Counters()
    const value = await generateStructured(llm, prompt, Decision, { label: 'judge.decide', counters })
    expect(value).toEqual({ should_remember: true })
    expect(llm.calls).toHaveLength(2)
    const retry = llm.calls[1].prompt
    expect(retry.startsWith(prompt)).toBe(true)
    expect(retry).toContain('{"should_remember": "yes"}')
    expect(retry).toMatch(/should_remember: Expected boolean, received string/)
    expect(counters.get('llm.retried')).toBe(1)
    expect(counters.get('llm.invalid')).toBe(0)
  })

  it('asks again when the answer was cut off, instead of taking what repair makes of it', async () => {
    const Facts = z.object({ facts: z.array(z.string()) })
    const llm = new FakeLLM([
      '{"facts": ["Alice lives in Chengdu", "Alice has a cat cal',
      '{"facts": ["Alice lives in Chengdu", "Alice has a cat"]}',
    ])
    const value = await generateStructured(llm, prompt, Facts, { label: 'judge.extract' })
    expect(value.facts).toEqual(['Alice lives in Chengdu', 'Alice has a cat'])
    expect(llm.calls).toHaveLength(2)
    expect(llm.calls[1].prompt).toContain('stops before its JSON ends')
  })

  it('tells the model when its answer held no JSON', async () => {
    const llm = new FakeLLM(['I would remember this.', '{"should_remember": false}'])
    await expect(generateStructured(llm, prompt, Decision, { label: 'x' })).resolves.toEqual({ should_remember: false })
    expect(llm.calls[1].prompt).toContain('no JSON object or array')
  })

  it('throws StructuredOutputError after the one retry and counts llm.invalid', async () => {
    const llm = new FakeLLM(['nope', '{"reason": 1}', '{"should_remember": true}'])
    const counters = new Counters()
    const logger = new RecordingLogger()
    const error = await generateStructured(llm, prompt, Decision, { label: 'judge.decide', counters, logger }).catch((e) => e)
    expect(error).toBeInstanceOf(StructuredOutputError)
    expect(error.label).toBe('judge.decide')
    expect(error.lastAnswer).toBe('{"reason": 1}')
    expect(error.message).toMatch(/judge\.decide: invalid answer after one retry: wrong shape/)
    expect(llm.calls).toHaveLength(2)
    expect(counters.get('llm.invalid')).toBe(1)
    expect(counters.get('llm.error')).toBe(0)
  })

  it('rethrows provider errors unchanged, without retrying, and counts llm.error', async () => {
    const failure = new ProviderError('rate limited', 'scripted', 429)
    const llm = new FakeLLM([failure])
    const counters = new Counters()
    await expect(generateStructured(llm, prompt, Decision, { label: 'x', counters })).rejects.toBe(failure)
    expect(llm.calls).toHaveLength(1)
    expect(counters.get('llm.error')).toBe(1)
    expect(counters.get('llm.invalid')).toBe(0)
  })

  it('counts a provider error on the retry call too', async () => {
    const llm = new FakeLLM(['garbage', new ProviderError('down', 'scripted', 503)])
    const counters = new Counters()
    await expect(generateStructured(llm, prompt, Decision, { label: 'x', counters })).rejects.toBeInstanceOf(ProviderError)
    expect(counters.get('llm.error')).toBe(1)
    expect(counters.get('llm.invalid')).toBe(0)
  })

  it('never logs the prompt or the answer above debug level', async () => {
    const logger = new RecordingLogger()
    const llm = new FakeLLM([`not json: ${SECRET}`, `still not json: ${SECRET}`])
    await generateStructured(llm, prompt, Decision, { label: 'judge.decide', logger }).catch(() => {})
    const loud = logger.above('info')
    expect(loud.length).toBeGreaterThan(0)
    for (const line of loud) expect(line.text).not.toContain('123456')
    expect(logger.lines.some((l) => l.level === 'debug' && l.text.includes('123456'))).toBe(true)
  })
})

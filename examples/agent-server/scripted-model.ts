// A scripted model for running the example offline (`MODEL=scripted`) and for
// its test: it reads its prompt as a real model would, but its replies are
// written here, so it proves the plumbing (stubs, recall, the palette's guard),
// not what a real model would choose to do.
//
// A question -> load the catalog; a catalog stub -> recall the cheapest item
// by json_path; a recall answer -> reply. Every reply is a function of the
// messages alone, so conversations may take turns in any order.

import { fakeModel } from 'langchain'
import { AIMessage, type BaseMessage } from '@langchain/core/messages'

// The id a stub (`mem=trm_…`) or a one-line note (`mem_id='trm_…'`) names.
const MEM_ID = /mem(?:_id)?=['"]?(trm_[0-9a-f]{12})/
export const text = (m: BaseMessage): string => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))

export function reply(messages: BaseMessage[]): AIMessage {
  const last = messages[messages.length - 1]
  const call = (name: string, args: Record<string, unknown>) =>
    new AIMessage({ content: '', tool_calls: [{ id: `call_${messages.length}_${name}`, name, args, type: 'tool_call' }] })
  if (last?.type === 'human') {
    const question = text(last)
    if (question.includes('delete')) return call('delete_repo', { repo: 'prod' })
    const stub = messages.map(text).find((t) => MEM_ID.test(t))
    const second = question.includes('second')
    if (stub && second) return call('recall_tool_result', { mem_id: MEM_ID.exec(stub)![1], json_path: 'items[1]' })
    const category = /in (\w+)/.exec(question)?.[1]
    if (category === undefined) return new AIMessage('(scripted model) ask "cheapest in garden?", "and the second cheapest?" or "please delete the repo"')
    return call('get_catalog', { category })
  }
  if (last?.type === 'tool' && last.name === 'get_catalog') {
    return call('recall_tool_result', { mem_id: MEM_ID.exec(text(last))![1], json_path: 'items[0]' })
  }
  if (last?.type === 'tool' && last.name === 'recall_tool_result') {
    const item = JSON.parse(text(last)) as { sku: string; price: number }
    return new AIMessage(`${item.sku} at $${item.price}`)
  }
  return new AIMessage(`the tool said: ${last ? text(last) : ''}`)
}

/** A fake model answering `reply` to `calls` calls, or to every call when `calls` is not given. */
export function scriptedModel(calls?: number) {
  const model = fakeModel()
  if (calls !== undefined) {
    for (let i = 0; i < calls; i++) model.respond(reply)
    return model
  }
  // Each reply queues the next one: as many calls as come.
  const again = (messages: BaseMessage[]): AIMessage => {
    model.respond(again)
    return reply(messages)
  }
  return model.respond(again)
}

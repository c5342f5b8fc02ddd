import type { MessageStore } from '../messages'
import { rebuildTopicWords } from './keywords'
import type { TopicStore } from './store'

/**
 * Topics a forgotten user talked in get their keywords and title made again from the messages left
 * (a model's title may quote the user); a topic with none left is removed.
 */
export async function rewordTopics(
  deps: { topics: Pick<TopicStore, 'get' | 'update' | 'remove'>; messages: Pick<MessageStore, 'byTopic'> },
  userId: string,
  topicIds: string[],
): Promise<void> {
  for (const id of topicIds) {
    const left = await deps.messages.byTopic(id, { limit: 1000 })
    if (!left.length) {
      await deps.topics.remove(id)
      continue
    }
    const topic = await deps.topics.get(id)
    if (!topic) continue
    await deps.topics.update(id, {
      ...rebuildTopicWords(left),
      messageCount: left.length,
      creatorId: topic.creatorId === userId ? '' : topic.creatorId,
    })
  }
}

/** Port of upstream `message_api.py` (MessageAPI). */
import { dictView, firstItem, listAppend, lower, pyIn, pyIter, zfill } from "../../../../lib/python/builtins";
import { pyAdd } from "../../../../lib/python/numbers";
import { PyRandom } from "../../../../lib/python/random";
import { intValue, isInt, noAttribute, PyDict, pyEq, PyException, PySet, pyStr, pyTruthy, type PyValue } from "../../../../lib/python/values";
import { Backend, dict, method, scenarioGet, type MethodSpec } from "./base";

/** `random.Random(seed)` for a scenario's seed (ints only, as in the data). */
export function randomFromSeed(seed: PyValue, where: string): PyRandom {
  if (!isInt(seed)) throw new PyException("TypeError", `${where}: random_seed must be an int, not ${pyStr(seed)}`);
  return new PyRandom(intValue(seed));
}

const defaultUserMap = () =>
  dict({ Alice: "USR001", Bob: "USR002", Catherine: "USR003", Daniel: "USR004" });
const defaultInbox = () => [dict({ USR002: "My name is Alice. I want to connect." }), dict({ USR003: "Could you upload the file?" }), dict({ USR004: "Could you upload the file?" })];

export class MessageAPI extends Backend {
  readonly className = "MessageAPI";
  private random = new PyRandom(200191n);
  generatedIds: PyValue = new PySet();
  userCount: PyValue = 4n;
  userMap: PyValue = defaultUserMap();
  inbox: PyValue = defaultInbox();
  messageCount: PyValue = 3n;
  currentUser: PyValue = null;

  loadScenario(scenario: PyDict): void {
    this.random = randomFromSeed(scenarioGet(scenario, "random_seed", 200191n), "MessageAPI");
    this.generatedIds = scenarioGet(scenario, "generated_ids", new PySet());
    this.userCount = scenarioGet(scenario, "user_count", 4n);
    this.userMap = scenarioGet(scenario, "user_map", defaultUserMap());
    this.inbox = scenarioGet(scenario, "inbox", defaultInbox());
    this.messageCount = scenarioGet(scenario, "message_count", 3n);
    this.currentUser = scenarioGet(scenario, "current_user", null);
  }

  publicState(): [string, PyValue][] {
    return [
      ["generated_ids", this.generatedIds],
      ["user_count", this.userCount],
      ["user_map", this.userMap],
      ["inbox", this.inbox],
      ["message_count", this.messageCount],
      ["current_user", this.currentUser],
    ];
  }

  private generateId(): PyDict {
    let id = this.random.randint(10000n, 99999n);
    while (pyIn(id, this.generatedIds)) id = this.random.randint(10000n, 99999n);
    if (!(this.generatedIds instanceof PySet)) throw noAttribute(this.generatedIds, "add");
    this.generatedIds.add(id);
    return dict({ new_id: id });
  }

  private inboxItems(): PyValue[] {
    return pyIter(this.inbox);
  }

  protected readonly methods: Record<string, MethodSpec> = {
    list_users: method([], () => dict({ user_list: dictView(this.userMap, "keys") })),

    get_user_id: method(["user"], (user) => {
      if (!pyIn(user, this.userMap)) return dict({ error: `User '${pyStr(user)}' not found in the workspace.` });
      return dict({ user_id: (this.userMap as PyDict).get(user) ?? null });
    }),

    message_login: method(["user_id"], (userId) => {
      if (!pyIn(userId, dictView(this.userMap, "values"))) return dict({ login_status: false, message: `User ID '${pyStr(userId)}' not found.` });
      this.currentUser = userId;
      return dict({ login_status: true, message: `User '${pyStr(userId)}' logged in successfully.` });
    }),

    message_get_login_status: method([], () => dict({ login_status: pyTruthy(this.currentUser) })),

    send_message: method(["receiver_id", "message"], (receiverId, message) => {
      if (!pyTruthy(this.currentUser)) return dict({ error: "No user is currently logged in." });
      if (!pyIn(receiverId, dictView(this.userMap, "values"))) return dict({ error: `Receiver ID '${pyStr(receiverId)}' not found.` });
      const messageId = this.generateId();
      listAppend(this.inbox, PyDict.of([[receiverId, message]]));
      this.messageCount = pyAdd(this.messageCount, 1n);
      return dict({ sent_status: true, message_id: messageId, message: `Message sent to '${pyStr(receiverId)}' successfully.` });
    }),

    delete_message: method(["receiver_id"], (receiverId) => {
      if (!pyTruthy(this.currentUser)) return dict({ error: "No user is currently logged in." });
      if (!Array.isArray(this.inbox)) throw noAttribute(this.inbox, "remove");
      const inbox = this.inbox;
      for (const message of [...inbox].reverse()) {
        const [receiver] = firstItem(message);
        if (pyEq(receiver, receiverId)) {
          // list.remove deletes the first equal message, not necessarily this one.
          inbox.splice(inbox.findIndex((m) => m === message || pyEq(m, message)), 1);
          return dict({ deleted_status: true, receiver_id: receiver, message: `Receiver ${pyStr(receiverId)}'s latest message deleted successfully.` });
        }
      }
      return dict({ error: `Receiver ID ${pyStr(receiverId)} not found.` });
    }),

    view_messages_sent: method([], () => {
      if (!pyTruthy(this.currentUser)) return dict({ error: "No user is currently logged in." });
      const sent = new PyDict();
      for (const message of this.inboxItems()) {
        const [receiver, content] = firstItem(message);
        if (!pyIn(receiver, sent)) sent.set(receiver, [content]);
        else listAppend(sent.get(receiver)!, content);
      }
      return dict({ messages: sent });
    }),

    add_contact: method(["user_name"], (userName) => {
      if (pyIn(userName, this.userMap)) return dict({ error: `User name '${pyStr(userName)}' already exists.` });
      this.userCount = pyAdd(this.userCount, 1n);
      const userId = `USR${zfill(pyStr(this.userCount), 3)}`;
      if (pyIn(userId, dictView(this.userMap, "values"))) return dict({ error: `User ID '${userId}' already exists.` });
      (this.userMap as PyDict).set(userName, userId);
      return dict({ added_status: true, user_id: userId, message: `Contact '${pyStr(userName)}' added successfully.` });
    }),

    search_messages: method(["keyword"], (keyword) => {
      if (!pyTruthy(this.currentUser)) return dict({ error: "No user is currently logged in." });
      const needle = lower(keyword);
      const results: PyValue[] = [];
      for (const data of this.inboxItems()) {
        const [receiverId, content] = firstItem(data);
        if (pyIn(needle, lower(content))) results.push(dict({ receiver_id: receiverId, message: content }));
      }
      return dict({ results });
    }),

    get_message_stats: method([], () => {
      if (!pyTruthy(this.currentUser)) return dict({ error: "No user is currently logged in." });
      let received = 0n;
      const contacts = new PySet();
      for (const data of this.inboxItems()) {
        const [receiverId] = firstItem(data);
        received += 1n;
        contacts.add(receiverId);
      }
      return dict({ stats: dict({ received_count: received, total_contacts: BigInt(contacts.size) }) });
    }),
  };
}

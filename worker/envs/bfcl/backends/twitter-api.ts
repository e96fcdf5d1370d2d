/** Port of upstream `posting_api.py` (TwitterAPI). */
import { dictGet, dictView, listAppend, listExtend, listRemove, lower, pyGetItem, pyIn, pyIter, pyLen } from "../../../../lib/python/builtins";
import { pyAdd, pyInt } from "../../../../lib/python/numbers";
import { PyDict, pyEq, pyStr, pyTruthy, type PyValue } from "../../../../lib/python/values";
import { Backend, dict, method, scenarioGet, type MethodSpec } from "./base";

export class TwitterAPI extends Backend {
  readonly className = "TwitterAPI";
  username: PyValue = "john";
  password: PyValue = "john123";
  authenticated: PyValue = false;
  tweets: PyValue = new PyDict();
  comments: PyValue = new PyDict();
  retweets: PyValue = new PyDict();
  followingList: PyValue = ["alice", "bob"];
  tweetCounter: PyValue = 0n;

  loadScenario(scenario: PyDict): void {
    this.username = scenarioGet(scenario, "username", "john");
    this.password = scenarioGet(scenario, "password", "john123");
    this.authenticated = scenarioGet(scenario, "authenticated", false);
    const tweets = scenarioGet(scenario, "tweets", new PyDict());
    // Upstream converts the tweet keys of the loaded scenario from str to int.
    this.tweets = PyDict.of(dictView(tweets, "keys").map((k) => [pyInt(k), (tweets as PyDict).get(k)!] as [PyValue, PyValue]));
    this.comments = scenarioGet(scenario, "comments", new PyDict());
    this.retweets = scenarioGet(scenario, "retweets", new PyDict());
    this.followingList = scenarioGet(scenario, "following_list", ["alice", "bob"]);
    this.tweetCounter = scenarioGet(scenario, "tweet_counter", 0n);
  }

  publicState(): [string, PyValue][] {
    return [
      ["username", this.username],
      ["password", this.password],
      ["authenticated", this.authenticated],
      ["tweets", this.tweets],
      ["comments", this.comments],
      ["retweets", this.retweets],
      ["following_list", this.followingList],
      ["tweet_counter", this.tweetCounter],
    ];
  }

  private tweetList(): PyValue[] {
    return dictView(this.tweets, "values");
  }

  protected readonly methods: Record<string, MethodSpec> = {
    authenticate_twitter: method(["username", "password"], (username, password) => {
      if (pyEq(username, this.username) && pyEq(password, this.password)) {
        this.authenticated = true;
        return dict({ authentication_status: true });
      }
      return dict({ authentication_status: false });
    }),

    posting_get_login_status: method([], () => dict({ login_status: pyTruthy(this.authenticated) })),

    post_tweet: method(
      ["content", ["tags", () => []], ["mentions", () => []]],
      (content, tags, mentions) => {
        if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please authenticate before posting." });
        const tweet = dict({ id: this.tweetCounter, username: this.username, content, tags, mentions });
        (this.tweets as PyDict).set(this.tweetCounter, tweet);
        this.tweetCounter = pyAdd(this.tweetCounter, 1n);
        return tweet;
      },
    ),

    retweet: method(["tweet_id"], (tweetId) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please authenticate before retweeting." });
      if (!pyIn(tweetId, this.tweets)) return dict({ error: `Tweet with ID ${pyStr(tweetId)} not found.` });
      if (!pyIn(this.username, this.retweets)) (this.retweets as PyDict).set(this.username, []);
      const mine = pyGetItem(this.retweets, this.username);
      if (pyIn(tweetId, mine)) return dict({ retweet_status: "Already retweeted" });
      listAppend(mine, tweetId);
      return dict({ retweet_status: "Successfully retweeted" });
    }),

    comment: method(["tweet_id", "comment_content"], (tweetId, commentContent) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please authenticate before commenting." });
      if (!pyIn(tweetId, this.tweets)) return dict({ error: `Tweet with ID ${pyStr(tweetId)} not found.` });
      if (!pyIn(tweetId, this.comments)) (this.comments as PyDict).set(tweetId, []);
      listAppend(pyGetItem(this.comments, tweetId), dict({ username: this.username, content: commentContent }));
      return dict({ comment_status: "Comment added successfully" });
    }),

    mention: method(["tweet_id", "mentioned_usernames"], (tweetId, usernames) => {
      if (!pyIn(tweetId, this.tweets)) return dict({ error: `Tweet with ID ${pyStr(tweetId)} not found.` });
      const tweet = pyGetItem(this.tweets, tweetId);
      listExtend(pyGetItem(tweet, "mentions"), usernames);
      return dict({ mention_status: "Users mentioned successfully" });
    }),

    follow_user: method(["username_to_follow"], (name) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please authenticate before following." });
      if (pyIn(name, this.followingList)) return dict({ follow_status: false });
      listAppend(this.followingList, name);
      return dict({ follow_status: true });
    }),

    list_all_following: method([], () => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please authenticate before listing following." });
      return dict({ following_list: this.followingList });
    }),

    unfollow_user: method(["username_to_unfollow"], (name) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please authenticate before unfollowing." });
      if (!pyIn(name, this.followingList)) return dict({ unfollow_status: false });
      listRemove(this.followingList, name);
      return dict({ unfollow_status: true });
    }),

    get_tweet: method(["tweet_id"], (tweetId) => {
      if (!pyIn(tweetId, this.tweets)) return dict({ error: `Tweet with ID ${pyStr(tweetId)} not found.` });
      return pyGetItem(this.tweets, tweetId);
    }),

    get_user_tweets: method(["username"], (username) => this.tweetList().filter((tweet) => pyEq(pyGetItem(tweet, "username"), username))),

    search_tweets: method(["keyword"], (keyword) =>
      this.tweetList().filter(
        (tweet) =>
          pyIn(lower(keyword), lower(pyGetItem(tweet, "content"))) ||
          pyIn(
            lower(keyword),
            pyIter(pyGetItem(tweet, "tags")).map((tag) => lower(tag)),
          ),
      ),
    ),

    get_tweet_comments: method(["tweet_id"], (tweetId) => {
      if (!pyIn(tweetId, this.tweets)) return dict({ error: `Tweet with ID ${pyStr(tweetId)} not found.` });
      return dictGet(this.comments, tweetId, []);
    }),

    get_user_stats: method(["username"], (username) => {
      const tweetCount = this.tweetList().filter((tweet) => pyEq(pyGetItem(tweet, "username"), username)).length;
      const followingCount = pyEq(username, this.username) ? pyLen(this.followingList) : 0;
      const retweetCount = pyLen(dictGet(this.retweets, username, []));
      return dict({ tweet_count: BigInt(tweetCount), following_count: BigInt(followingCount), retweet_count: BigInt(retweetCount) });
    }),
  };
}

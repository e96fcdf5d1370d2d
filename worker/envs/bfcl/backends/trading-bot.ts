/** Port of upstream `trading_bot.py` (TradingBot). */
import { dictGet, dictView, formatNamed, isdigit, listAppend, listExtend, listRemove, lower, pyGetItem, pyIn, pyIter, pyJoin, pySetItem, shallowCopy } from "../../../../lib/python/builtins";
import { PyDateTime, strptime } from "../../../../lib/python/datetime";
import { formatFixed, pyAbs, pyFloat, pyInt, pyMul, pySub, pyAdd } from "../../../../lib/python/numbers";
import { PyRandom } from "../../../../lib/python/random";
import { PyDict, pyCompare, pyEq, PyException, pyRepr, pyStr, pyTruthy, type PyValue } from "../../../../lib/python/values";
import { longContextValue } from "../scope";
import { Backend, dict, method, scenarioGet, type MethodSpec } from "./base";
import { randomFromSeed } from "./message-api";

const CURRENT_TIME = new PyDateTime(2024, 9, 1, 10, 30);

function stock(price: number, percentChange: number, volume: number, ma5: number, ma20: number): PyDict {
  return dict({ price, percent_change: percentChange, volume, "MA(5)": ma5, "MA(20)": ma20 });
}

const defaultOrders = () =>
  PyDict.of([
    [12345n, dict({ id: 12345n, order_type: "Buy", symbol: "AAPL", price: 210.65, amount: 10n, status: "Completed" })],
    [12446n, dict({ id: 12446n, order_type: "Sell", symbol: "GOOG", price: 2840.56, amount: 5n, status: "Pending" })],
  ]);
const defaultAccount = () => dict({ account_id: 12345n, balance: 10000.0, binding_card: 1974202140965533n });
const defaultStocks = () =>
  dict({
    AAPL: stock(227.16, 0.17, 2.552, 227.11, 227.09),
    GOOG: stock(2840.34, 0.24, 1.123, 2835.67, 2842.15),
    TSLA: stock(667.92, -0.12, 1.654, 671.15, 668.2),
    MSFT: stock(310.23, 0.09, 3.234, 309.88, 310.11),
    NVDA: stock(220.34, 0.34, 1.234, 220.45, 220.67),
    ALPH: stock(1320.45, -0.08, 1.567, 1321.12, 1325.78),
    OMEG: stock(457.23, 0.12, 2.345, 456.78, 458.12),
    QUAS: stock(725.89, -0.03, 1.789, 726.45, 728.0),
    NEPT: stock(88.34, 0.19, 0.654, 88.21, 88.67),
    SYNX: stock(345.67, 0.11, 2.112, 345.34, 346.12),
    ZETA: stock(22.09, -0.05, 0.789, 22.12, 22.34),
  });

const SYMBOLS: [string, string][] = [
  ["Apple", "AAPL"],
  ["Google", "GOOG"],
  ["Tesla", "TSLA"],
  ["Microsoft", "MSFT"],
  ["Nvidia", "NVDA"],
  ["Zeta Corp", "ZETA"],
  ["Alpha Tech", "ALPH"],
  ["Omega Industries", "OMEG"],
  ["Quasar Ltd.", "QUAS"],
  ["Neptune Systems", "NEPT"],
  ["Synex Solutions", "SYNX"],
  ["Amazon", "AMZN"],
  ["Gorilla", "GORI"],
];

export class TradingBot extends Backend {
  readonly className = "TradingBot";
  orders: PyValue = defaultOrders();
  accountInfo: PyValue = defaultAccount();
  authenticated: PyValue = false;
  marketStatus: PyValue = "Closed";
  orderCounter: PyValue = 12446n;
  stocks: PyValue = defaultStocks();
  watchList: PyValue = ["NVDA"];
  transactionHistory: PyValue = [];
  longContext = false;
  private random = new PyRandom(1053520n);

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const orders = scenarioGet(scenario, "orders", defaultOrders());
    // Upstream turns digit-only str keys into int keys.
    this.orders = PyDict.of(
      dictView(orders, "keys").map((k) => [typeof k === "string" && isdigit(k) ? pyInt(k) : k, (orders as PyDict).get(k)!] as [PyValue, PyValue]),
    );
    this.accountInfo = scenarioGet(scenario, "account_info", defaultAccount());
    this.authenticated = scenarioGet(scenario, "authenticated", false);
    this.marketStatus = scenarioGet(scenario, "market_status", "Closed");
    this.orderCounter = scenarioGet(scenario, "order_counter", 12446n);
    this.stocks = scenarioGet(scenario, "stocks", defaultStocks());
    this.watchList = scenarioGet(scenario, "watch_list", ["NVDA"]);
    this.transactionHistory = scenarioGet(scenario, "transaction_history", []);
    this.longContext = longContext;
    this.random = randomFromSeed(scenarioGet(scenario, "random_seed", 1053520n), "TradingBot");
  }

  publicState(): [string, PyValue][] {
    return [
      ["orders", this.orders],
      ["account_info", this.accountInfo],
      ["authenticated", this.authenticated],
      ["market_status", this.marketStatus],
      ["order_counter", this.orderCounter],
      ["stocks", this.stocks],
      ["watch_list", this.watchList],
      ["transaction_history", this.transactionHistory],
      ["long_context", this.longContext],
    ];
  }

  private lc(name: string, kind: "list"): PyValue[];
  private lc(name: string, kind: "dict"): PyDict;
  private lc(name: string, kind: "str"): string;
  private lc(name: string, kind: "list" | "dict" | "str"): PyValue {
    return longContextValue(this.scope.longContext(), name, kind as "list");
  }

  private transactionTimestamp(): string {
    const start = BigInt(Math.trunc(CURRENT_TIME.timestamp()));
    const end = BigInt(Math.trunc(CURRENT_TIME.plus(1).timestamp()));
    const ts = this.random.randint(start, end);
    return PyDateTime.fromTimestamp(Number(ts)).strftime("%Y-%m-%d %H:%M:%S");
  }

  private balance(): PyValue {
    return dictGet(this.accountInfo, "balance", 0n);
  }

  protected readonly methods: Record<string, MethodSpec> = {
    get_current_time: method([], () => dict({ current_time: CURRENT_TIME.strftime("%I:%M %p") })),

    get_symbol_by_name: method(["name"], (name) => dict({ symbol: dictGet(PyDict.of(SYMBOLS), name, "Stock not found") })),

    get_stock_info: method(["symbol"], (symbol) => {
      if (!pyIn(symbol, this.stocks)) return dict({ error: `Stock with symbol '${pyStr(symbol)}' not found.` });
      if (this.longContext) {
        const info = shallowCopy(pyGetItem(this.stocks, symbol));
        pySetItem(info, "MA(5)", this.lc("MA_5_EXTENSION", "list"));
        pySetItem(info, "MA(20)", this.lc("MA_20_EXTENSION", "list"));
        return info;
      }
      return pyGetItem(this.stocks, symbol);
    }),

    get_order_details: method(["order_id"], (orderId) => {
      if (!pyIn(orderId, this.orders)) {
        return dict({ error: `Order with ID ${pyStr(orderId)} not found.` + "Here is the list of orders_id: " + pyRepr(dictView(this.orders, "keys")) });
      }
      if (this.longContext) {
        const order = shallowCopy(pyGetItem(this.orders, orderId));
        const symbol = pyGetItem(order, "symbol");
        const formatted = new PyDict();
        for (const [key, value] of (this.lc("ORDER_DETAIL_EXTENSION", "dict") as PyDict).entries()) {
          try {
            formatted.set(key, formatNamed(value as string, { symbol }));
          } catch (err) {
            if (err instanceof PyException && err.pyType === "KeyError") return dict({ error: `KeyError during formatting: ${err.pyMessage}` });
            throw err;
          }
        }
        pySetItem(order, "metadata", formatted);
        return order;
      }
      return pyGetItem(this.orders, orderId);
    }),

    cancel_order: method(["order_id"], (orderId) => {
      if (!pyIn(orderId, this.orders)) return dict({ error: `Order with ID ${pyStr(orderId)} not found.` });
      const order = pyGetItem(this.orders, orderId);
      if (pyEq(pyGetItem(order, "status"), "Completed")) return dict({ error: `Can't cancel order ${pyStr(orderId)}. Order is already completed.` });
      pySetItem(order, "status", "Cancelled");
      return dict({ order_id: orderId, status: "Cancelled" });
    }),

    place_order: method(["order_type", "symbol", "price", "amount"], (orderType, symbol, priceArg, amount) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please log in to place an order." });
      if (!pyIn(symbol, this.stocks)) return dict({ error: `Invalid stock symbol: ${pyStr(symbol)}` });
      if (pyCompare(priceArg, "<=", 0n) || pyCompare(amount, "<=", 0n)) return dict({ error: "Price and amount must be positive values." });
      if (lower(orderType) === "buy") {
        const totalCost = pyMul(pyFloat(priceArg), pyInt(amount));
        if (pyCompare(totalCost, ">", this.balance())) {
          return dict({
            error: "Insufficient funds: required " + `$${formatFixed(totalCost, 2)} but only $${formatFixed(this.balance(), 2)} available.`,
          });
        }
      }
      const price = pyFloat(priceArg);
      const orderId = this.orderCounter;
      pySetItem(this.orders, orderId, dict({ id: orderId, order_type: orderType, symbol, price, amount, status: "Open" }));
      this.orderCounter = pyAdd(this.orderCounter, 1n);
      return dict({ order_id: orderId, order_type: orderType, status: "Pending", price, amount });
    }),

    withdraw_funds: method(["amount"], (amount) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please log in to make a transaction." });
      if (!pyEq(this.marketStatus, "Open")) return dict({ error: "Market is closed. Transactions are not allowed." });
      if (pyCompare(amount, "<=", 0n)) return dict({ error: "Transaction amount must be positive." });
      if (pyCompare(amount, ">", pyGetItem(this.accountInfo, "balance"))) return dict({ error: "Insufficient funds for withdrawal." });
      pySetItem(this.accountInfo, "balance", pySub(pyGetItem(this.accountInfo, "balance"), amount));
      listAppend(this.transactionHistory, dict({ type: "withdrawal", amount, timestamp: this.transactionTimestamp() }));
      return dict({ status: "Withdrawal successful", new_balance: pyGetItem(this.accountInfo, "balance") });
    }),

    get_account_info: method([], () => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please log in to view account information." });
      return this.accountInfo;
    }),

    trading_login: method(["username", "password"], () => {
      if (pyTruthy(this.authenticated)) return dict({ status: "Already logged in" });
      this.authenticated = true;
      return dict({ status: "Logged in successfully" });
    }),

    trading_get_login_status: method([], () => dict({ status: pyTruthy(this.authenticated) })),

    trading_logout: method([], () => {
      if (!pyTruthy(this.authenticated)) return dict({ status: "No user is currently logged in" });
      this.authenticated = false;
      return dict({ status: "Logged out successfully" });
    }),

    fund_account: method(["amount"], (amount) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please log in to fund the account." });
      if (pyCompare(amount, "<=", 0n)) return dict({ error: "Funding amount must be positive." });
      pySetItem(this.accountInfo, "balance", pyAdd(pyGetItem(this.accountInfo, "balance"), amount));
      listAppend(this.transactionHistory, dict({ type: "deposit", amount, timestamp: this.transactionTimestamp() }));
      return dict({ status: "Account funded successfully", new_balance: pyGetItem(this.accountInfo, "balance") });
    }),

    remove_stock_from_watchlist: method(["symbol"], (symbol) => {
      if (!pyTruthy(this.authenticated)) return dict({ error: "User not authenticated. Please log in to modify the watchlist." });
      if (!pyIn(symbol, this.watchList)) return dict({ error: `Stock ${pyStr(symbol)} not found in watchlist.` });
      listRemove(this.watchList, symbol);
      return dict({ status: `Stock ${pyStr(symbol)} removed from watchlist successfully.` });
    }),

    get_watchlist: method([], () => {
      if (!pyTruthy(this.authenticated)) return ["Error: User not authenticated. Please log in to view the watchlist."];
      if (this.longContext) {
        const list = shallowCopy(this.watchList);
        listExtend(list, this.lc("WATCH_LIST_EXTENSION", "list"));
        return list;
      }
      return dict({ watchlist: this.watchList });
    }),

    get_order_history: method([], () => {
      if (!pyTruthy(this.authenticated)) return [dict({ error: "User not authenticated. Please log in to view order history." })];
      return dict({ history: dictView(this.orders, "keys") });
    }),

    get_transaction_history: method([["start_date", null], ["end_date", null]], (startDate, endDate) => {
      if (!pyTruthy(this.authenticated)) return [dict({ error: "User not authenticated. Please log in to view transaction history." })];
      const start = pyTruthy(startDate) ? strptime(startDate, "%Y-%m-%d") : PyDateTime.min;
      const end = pyTruthy(endDate) ? strptime(endDate, "%Y-%m-%d") : PyDateTime.max;
      const filtered = pyIter(this.transactionHistory).filter((t) => {
        const when = strptime(pyGetItem(t, "timestamp"), "%Y-%m-%d %H:%M:%S");
        return pyCompare(start, "<=", when) && pyCompare(when, "<=", end);
      });
      if (this.longContext) filtered.push(...this.lc("TRANSACTION_HISTORY_EXTENSION", "list"));
      return dict({ transaction_history: filtered });
    }),

    get_available_stocks: method(["sector"], (sector) => {
      const technology: PyValue[] = ["AAPL", "GOOG", "MSFT", "NVDA"];
      const automobile: PyValue[] = ["TSLA", "F", "GM"];
      if (this.longContext) {
        technology.push(...this.lc("TECHNOLOGY_EXTENSION", "list"));
        automobile.push(...this.lc("AUTOMOBILE_EXTENSION", "list"));
      }
      return dict({ stock_list: dictGet(dict({ Technology: technology, Automobile: automobile }), sector, []) });
    }),

    filter_stocks_by_price: method(["stocks", "min_price", "max_price"], (stocks, minPrice, maxPrice) => {
      const priceOf = (symbol: PyValue) => dictGet(dictGet(this.stocks, symbol, new PyDict()), "price", 0n);
      const filtered = pyIter(stocks).filter((symbol) => pyCompare(priceOf(symbol), ">=", minPrice) && pyCompare(priceOf(symbol), "<=", maxPrice));
      return dict({ filtered_stocks: filtered });
    }),

    add_to_watchlist: method(["stock"], (stockSymbol) => {
      if (!pyIn(stockSymbol, this.watchList) && pyIn(stockSymbol, this.stocks)) listAppend(this.watchList, stockSymbol);
      return dict({ watchlist: this.watchList });
    }),

    notify_price_change: method(["stocks", "threshold"], (stocks, threshold) => {
      const changed = pyIter(stocks).filter(
        (symbol) => pyIn(symbol, this.stocks) && pyCompare(pyAbs(pyGetItem(pyGetItem(this.stocks, symbol), "percent_change")), ">=", threshold),
      );
      if (changed.length > 0) return dict({ notification: `Stocks ${pyJoin(", ", changed)} have significant price changes.` });
      return dict({ notification: "No significant price changes in the selected stocks." });
    }),
  };
}

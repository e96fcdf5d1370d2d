/** Port of upstream `ticket_api.py` (TicketAPI). */
import { dictView, listAppend, lower, pyGetItem, pyIn, pyIter, pyJoin, pySetItem } from "../../../../lib/python/builtins";
import { pyAdd } from "../../../../lib/python/numbers";
import { pyCompare, PyDict, pyEq, pyStr, pyTruthy, type PyValue } from "../../../../lib/python/values";
import { Backend, dict, method, scenarioGet, type MethodSpec } from "./base";

const VALID_FIELDS = ["title", "description", "status", "priority"];

export class TicketAPI extends Backend {
  readonly className = "TicketAPI";
  ticketQueue: PyValue = [];
  ticketCounter: PyValue = 1n;
  currentUser: PyValue = null;

  loadScenario(scenario: PyDict): void {
    this.ticketQueue = scenarioGet(scenario, "ticket_queue", []);
    this.ticketCounter = scenarioGet(scenario, "ticket_counter", 1n);
    this.currentUser = scenarioGet(scenario, "current_user", null);
  }

  publicState(): [string, PyValue][] {
    return [
      ["ticket_queue", this.ticketQueue],
      ["ticket_counter", this.ticketCounter],
      ["current_user", this.currentUser],
    ];
  }

  private queue(): PyValue[] {
    return pyIter(this.ticketQueue);
  }

  private findTicket(ticketId: PyValue): PyValue {
    for (const ticket of this.queue()) if (pyEq(pyGetItem(ticket, "id"), ticketId)) return ticket;
    return null;
  }

  protected readonly methods: Record<string, MethodSpec> = {
    create_ticket: method(["title", ["description", ""], ["priority", 1n]], (title, description, priority) => {
      if (!pyTruthy(this.currentUser)) return dict({ error: "User not authenticated. Please log in to create a ticket." });
      if (pyCompare(priority, "<", 1n) || pyCompare(priority, ">", 5n)) return dict({ error: "Invalid priority. Priority must be between 1 and 5." });
      const ticket = dict({ id: this.ticketCounter, title, description, status: "Open", priority, created_by: this.currentUser });
      listAppend(this.ticketQueue, ticket);
      this.ticketCounter = pyAdd(this.ticketCounter, 1n);
      return ticket;
    }),

    get_ticket: method(["ticket_id"], (ticketId) => {
      const ticket = this.findTicket(ticketId);
      if (!pyTruthy(ticket)) return dict({ error: `Ticket with ID ${pyStr(ticketId)} not found.` });
      return ticket;
    }),

    close_ticket: method(["ticket_id"], (ticketId) => {
      const ticket = this.findTicket(ticketId);
      if (!pyTruthy(ticket)) return dict({ error: `Ticket with ID ${pyStr(ticketId)} not found.` });
      if (pyEq(pyGetItem(ticket, "status"), "Closed")) return dict({ error: `Ticket with ID ${pyStr(ticketId)} is already closed.` });
      pySetItem(ticket, "status", "Closed");
      return dict({ status: `Ticket ${pyStr(ticketId)} has been closed successfully.` });
    }),

    resolve_ticket: method(["ticket_id", "resolution"], (ticketId, resolution) => {
      const ticket = this.findTicket(ticketId);
      if (!pyTruthy(ticket)) return dict({ error: `Ticket with ID ${pyStr(ticketId)} not found.` });
      if (pyEq(pyGetItem(ticket, "status"), "Resolved")) return dict({ error: `Ticket with ID ${pyStr(ticketId)} is already resolved.` });
      pySetItem(ticket, "status", "Resolved");
      pySetItem(ticket, "resolution", resolution);
      return dict({ status: `Ticket ${pyStr(ticketId)} has been resolved successfully.` });
    }),

    edit_ticket: method(["ticket_id", "updates"], (ticketId, updates) => {
      const ticket = this.findTicket(ticketId);
      if (!pyTruthy(ticket)) return dict({ error: `Ticket with ID ${pyStr(ticketId)} not found.` });
      // set(updates.keys()) - valid_fields: upstream's order follows str hashing; here the order of `updates`.
      const invalid = dictView(updates, "keys").filter((key) => !pyIn(key, VALID_FIELDS));
      if (invalid.length > 0) return dict({ error: `Invalid fields for update: ${pyJoin(", ", invalid)}` });
      for (const [key, value] of (updates as PyDict).entries()) if (value !== null) pySetItem(ticket, key, value);
      return dict({ status: `Ticket ${pyStr(ticketId)} has been updated successfully.` });
    }),

    ticket_login: method(["username", "password"], (username, password) => {
      if (pyTruthy(username) && pyTruthy(password)) {
        this.currentUser = username;
        return dict({ success: true });
      }
      return dict({ success: false });
    }),

    ticket_get_login_status: method([], () => dict({ login_status: pyTruthy(this.currentUser) })),

    logout: method([], () => {
      if (pyTruthy(this.currentUser)) {
        this.currentUser = null;
        return dict({ success: true });
      }
      return dict({ success: false });
    }),

    get_user_tickets: method([["status", null]], (status) => {
      if (!pyTruthy(this.currentUser)) return [dict({ error: "User not authenticated. Please log in to view tickets." })];
      let tickets = this.queue().filter((ticket) => pyEq(pyGetItem(ticket, "created_by"), this.currentUser));
      if (pyTruthy(status)) tickets = tickets.filter((ticket) => pyEq(lower(pyGetItem(ticket, "status")), lower(status)));
      return tickets;
    }),
  };
}

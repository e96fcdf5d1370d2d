/** The machine's one transition: an event applied to the state it matches. */
import { Termination } from "../../../contracts/termination";
import { onAct } from "./act";
import { generationFailure, noTokens, record } from "./record";
import type { RolloutEvent, RolloutState } from "./state";
import { terminate } from "./limits";
import { onRehearse, onTool } from "./tools";
import { environmentFailed, onJudged, onUser, userFailed } from "./turns";

/** Advance the machine by one event. Events that do not match the state are ignored. */
export function applyEvent(state: RolloutState, event: RolloutEvent): RolloutState {
  if (event.kind === "environment_failed") return state.status === "terminated" ? state : environmentFailed(state, event);
  switch (state.status) {
    case "await_caller":
      if (event.kind === "act") return onAct(state, event.output);
      if (event.kind === "act_failed") {
        const records = record(state, { role: "act", microStep: state.microSteps, text: "", error: generationFailure(event), ...noTokens, valid: false });
        return terminate({ ...state, records }, Termination.generationFailed);
      }
      return state;
    case "await_simulator":
      if (event.kind === "rehearse" || event.kind === "rehearse_failed") return onRehearse(state, event);
      return state;
    case "processing_tools":
      if (event.kind === "tool") return onTool(state, event.content, event.failed === true, event.probe, event.realError);
      return state;
    case "interacting":
      if (event.kind === "judged") return onJudged(state, event.stop, event.reason);
      return state;
    case "await_user":
      if (event.kind === "user") return onUser(state, event.text, event.stop, event.actions);
      if (event.kind === "user_failed") return userFailed(state, event.reason, event.reason.toUpperCase(), event.detail, "");
      return state;
    default:
      return state;
  }
}


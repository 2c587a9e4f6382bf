// The open chat's tabs in the side panel: its agents' todos, the session's
// scratchpad, and the background tasks that report to this chat (the Tasks
// page's own list, kept to them, refreshing while the tab shows).
import * as api from "../api";
import { Tasks, type TasksDeps } from "../pages/tasks";
import type { PinnedTab } from "../viewer/panel";

export function sessionTabs(sessionId: string, companion: { todos: HTMLElement; scratch: HTMLElement }, tasksApi: TasksDeps["api"] = api): PinnedTab[] {
  return [
    { id: "todos", label: "Todos", render: () => companion.todos },
    { id: "scratchpad", label: "Scratchpad", render: () => companion.scratch },
    {
      id: "tasks",
      label: "Tasks",
      render: () => (
        <div class="side-tasks" data-testid="session-tasks">
          <Tasks deps={{ api: tasksApi }} refresh={true} heading={false} only={(t) => t.parentSessionId === sessionId} />
        </div>
      ),
    },
  ];
}

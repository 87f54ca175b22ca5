/**
 * The OpenAI Responses API's response object, as the local fakes of a model
 * answer it (@effect/ai-openai decodes it): in progress with no output, or
 * completed with one assistant message carrying `text`.
 */
export const responseObject = (model: string, status: "in_progress" | "completed", text: string) => ({
  id: "resp_test",
  object: "response",
  created_at: Math.floor(Date.now() / 1000),
  status,
  error: null,
  incomplete_details: null,
  instructions: null,
  model,
  output:
    status === "completed"
      ? [
          {
            id: "msg_test",
            type: "message",
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text, annotations: [] }]
          }
        ]
      : [],
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  metadata: {},
  temperature: 1,
  top_p: 1,
  usage: null
})

"""fstools' tools as the native tool objects of agent frameworks, with no glue to write.

One module per framework, each importing only that framework (install it with the extra of
the same name, e.g. `pip install 'fstools[langchain]'`)::

    from fstools.integrations import langchain      # or openai_agents, pydantic_ai, llama_index, smolagents
    tools = langchain.tools(ctx, include=["Read", "Grep"])

    from fstools.integrations import claude_agent_sdk
    server = claude_agent_sdk.server(ctx)            # the Claude Agent SDK's in-process MCP server

Every tool fstools registers is there with every parameter; a failed call is marked failed
the framework's way, images arrive as the framework's image type, and the "there is more"
notice stays in the text the model reads. This package itself imports no framework.
"""
